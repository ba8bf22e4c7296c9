import { parseJsonBytes, readBoundedBody } from "@t3-connector/core/http-edge";
import type { Context, MiddlewareHandler } from "hono";

/** A `/mcp` body read and parsed before the call takes a concurrency slot. */
export interface McpBody {
  readonly parsed: unknown;
  /** Calls the body asks for: the length of a JSON-RPC batch, else 1 (ADR 0020). */
  readonly calls: number;
}

const bodies = new WeakMap<Request, McpBody>();

/**
 * The body `readMcpBody` read for this request: the one parse of a `/mcp` body, which the OAuth
 * guard's idle-window check and the MCP handlers both take (ADR 0056).
 */
export function mcpBodyOf(request: Request): McpBody | undefined {
  return bodies.get(request);
}

/**
 * Reads the whole `/mcp` body, at most `maxBytes`, with core's one bounded reader and parses it,
 * before anything is counted as in flight: a client that sends its body slowly holds a connection
 * (bounded by the request timeout and the connection budget), never one of the few call slots.
 * Answers like the SDK transport would: 413 for a body declared or counted past the limit, 400
 * with JSON-RPC -32700 for bytes that are not UTF-8 or JSON that does not parse.
 */
export function readMcpBody(maxBytes: number): MiddlewareHandler {
  return async function readBody(c, next) {
    const read = await readBoundedBody(c.req.raw, { maxBytes });
    if (read.kind === "too_large") return c.json({ error: "body_too_large", limit: maxBytes }, 413);
    // The client went away, or Node cut a body that outlived the request timeout.
    if (read.kind !== "ok") return c.body(null, 400);
    const body = parseJsonBytes(read.bytes);
    if (body.kind === "not_utf8") return parseError(c, "Parse error: the body is not UTF-8");
    if (body.kind === "not_json") return parseError(c, "Parse error: Invalid JSON");
    const parsed = body.value;
    bodies.set(c.req.raw, { parsed, calls: Array.isArray(parsed) ? Math.max(1, parsed.length) : 1 });
    await next();
  };
}

function parseError(c: Context, message: string): Response {
  return c.json({ jsonrpc: "2.0", error: { code: -32700, message }, id: null }, 400);
}
