import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { Context } from "hono";

export interface McpEndpointOptions {
  /** Builds the read server with its tools (the same construction as stdio). */
  readonly createServer: () => McpServer;
  /** The transport counts a chunked body against this too. */
  readonly maxBodyBytes: number;
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
    const server = options.createServer();
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
      maxRequestBodySize: options.maxBodyBytes,
    });
    transport.onerror = (error) => options.log(`mcp over http: ${error.message}`);
    await server.connect(transport);
    // The client hung up: closing the server aborts the tool's signal, as closing stdin does.
    const request = c.req.raw;
    const hangUp = () => void server.close();
    request.signal.addEventListener("abort", hangUp, { once: true });
    try {
      return await transport.handleRequest(request);
    } finally {
      request.signal.removeEventListener("abort", hangUp);
      await server.close();
    }
  };
}
