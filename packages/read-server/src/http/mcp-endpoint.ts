import {
  type AuthInfo,
  createMcpHandler,
  isLegacyRequest,
  type Server,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import { refusedInitialize } from "@t3-connector/mcp-tools";
import type { Context } from "hono";
import { mcpBodyOf } from "./request-body.js";

/** nginx's "client closed request": the answer to a request whose client went away. */
const CLIENT_CLOSED_REQUEST = 499;

export interface McpEndpointOptions {
  /**
   * Builds the read server with its tools (the same construction as stdio), and the write tools
   * for an OAuth session allowed to write (from the request's `authInfo`, ADR 0049).
   */
  readonly createServer: (authInfo: AuthInfo | undefined) => Server;
  /** The OAuth session behind the request, handed on to both eras' handlers. */
  readonly authInfoOf?: (c: Context) => AuthInfo | undefined;
  readonly log: (line: string) => void;
}

/**
 * `POST /mcp` for both eras of MCP (ADR 0046), after every guard of the app has passed and the
 * body was read and parsed (request-body.ts):
 *
 * - 2026-07-28 requests (the per-request `_meta` envelope) go to the SDK's handler
 *   (`createMcpHandler`, modern only), which validates the envelope and the `MCP-Protocol-Version`
 *   header and answers `server/discover` itself. Answers are plain JSON: the handler's default
 *   (`auto`) streams only when a message precedes the result, and a read sends none.
 * - 2025-era requests (`initialize`, then calls without an envelope) keep the stateless transport
 *   they had (ADR 0014): a server and transport per request, plain JSON answers. Each request gets
 *   its own server, so nothing is lost and no session goes stale across restarts or tunnels.
 *
 * An empty batch `[]` is a JSON-RPC Invalid Request in both eras (the 2025 transport would accept
 * it with 202 and answer nothing).
 */
export function mcpEndpoint(options: McpEndpointOptions): (c: Context) => Promise<Response> {
  const onerror = (error: Error) => options.log(`mcp over http: ${error.message}`);
  const modern = createMcpHandler((ctx) => options.createServer(ctx.authInfo), {
    legacy: "reject",
    onerror,
  });
  return async function handleMcp(c) {
    const request = c.req.raw;
    const parsed = mcpBodyOf(request)?.parsed;
    if (Array.isArray(parsed) && parsed.length === 0) return emptyBatch(c);
    const refusal = refusedInitialize(parsed);
    if (refusal !== null) return c.json(refusal, 400);
    const legacy = await isLegacyRequest(request, parsed);
    const authInfo = options.authInfoOf?.(c);
    const handed = { parsedBody: parsed, ...(authInfo === undefined ? {} : { authInfo }) };
    return untilHangUp(request, async (hungUp) => {
      if (!legacy) return modern.fetch(request, handed);
      const server = options.createServer(authInfo);
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      transport.onerror = onerror;
      await server.connect(transport);
      // The client hung up: closing the server aborts the tool's signal, as closing stdin does.
      hungUp.then(() => server.close()).catch(() => undefined);
      try {
        return await transport.handleRequest(request, handed);
      } finally {
        await server.close();
      }
    });
  };
}

/**
 * Runs `answer` until it settles or the client hangs up. A transport never settles a JSON answer
 * it can no longer send, so the hang-up settles the request itself (with a status nobody reads)
 * and the request stops counting as in flight.
 */
async function untilHangUp(
  request: Request,
  answer: (hungUp: Promise<void>) => Promise<Response>,
): Promise<Response> {
  let hangUp = () => {};
  const hungUp = new Promise<void>((resolve) => {
    hangUp = resolve;
  });
  if (request.signal.aborted) hangUp();
  request.signal.addEventListener("abort", hangUp, { once: true });
  try {
    const closed = hungUp.then(() => new Response(null, { status: CLIENT_CLOSED_REQUEST }));
    return await Promise.race([answer(hungUp), closed]);
  } finally {
    request.signal.removeEventListener("abort", hangUp);
  }
}

function emptyBatch(c: Context): Response {
  return c.json(
    { jsonrpc: "2.0", error: { code: -32600, message: "Invalid Request: an empty batch" }, id: null },
    400,
  );
}
