import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { Context } from "hono";
import { mcpBodyOf } from "./request-body.js";

/** nginx's "client closed request": the answer to a request whose client went away. */
const CLIENT_CLOSED_REQUEST = 499;

export interface McpEndpointOptions {
  /**
   * Builds the read server with its tools (the same construction as stdio), and the write tools
   * for an OAuth session allowed to write.
   */
  readonly createServer: (c: Context) => McpServer;
  readonly log: (line: string) => void;
}

/**
 * `POST /mcp` in the transport's stateless mode: every request gets its own server and transport,
 * which end with the answer (ADR 0014). The read tools keep no per-client state (cursors are
 * signed by the process, connections and mirrors live in the shared context), so nothing is lost,
 * and no session can go stale when the process restarts or a tunnel reconnects.
 *
 * Answers are plain JSON (`enableJsonResponse`): a read sends no progress or server-initiated
 * message, so an SSE stream would only add framing that proxies and tunnels may buffer.
 */
export function mcpEndpoint(options: McpEndpointOptions): (c: Context) => Promise<Response> {
  return async function handleMcp(c) {
    const server = options.createServer(c);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    transport.onerror = (error) => options.log(`mcp over http: ${error.message}`);
    await server.connect(transport);
    // The client hung up: closing the server aborts the tool's signal, as closing stdin does. The
    // transport never settles a JSON answer it can no longer send, so the hang-up settles this
    // request itself (with a status nobody reads) and the request stops counting as in flight.
    const request = c.req.raw;
    let hangUp = () => {};
    const hungUp = new Promise<Response>((resolve) => {
      hangUp = () => {
        void server.close();
        resolve(new Response(null, { status: CLIENT_CLOSED_REQUEST }));
      };
    });
    if (request.signal.aborted) hangUp();
    request.signal.addEventListener("abort", hangUp, { once: true });
    try {
      // The body was read and parsed before the call took its slot (request-body.ts).
      const body = mcpBodyOf(request);
      const handled = transport.handleRequest(
        request,
        body === undefined ? undefined : { parsedBody: body.parsed },
      );
      return await Promise.race([handled, hungUp]);
    } finally {
      request.signal.removeEventListener("abort", hangUp);
      await server.close();
    }
  };
}
