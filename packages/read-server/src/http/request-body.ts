import type { Context, MiddlewareHandler } from "hono";

/** A `/mcp` body read and parsed before the call takes a concurrency slot. */
export interface McpBody {
  readonly parsed: unknown;
  /** Calls the body asks for: the length of a JSON-RPC batch, else 1 (ADR 0020). */
  readonly calls: number;
}

const bodies = new WeakMap<Request, McpBody>();

/** The body `readMcpBody` read for this request. */
export function mcpBodyOf(request: Request): McpBody | undefined {
  return bodies.get(request);
}

/**
 * Reads the whole `/mcp` body, at most `maxBytes`, and parses it, before anything is counted as
 * in flight: a client that sends its body slowly holds a connection (bounded by the request
 * timeout and the connection budget), never one of the few call slots. Answers like the SDK
 * transport would: 413 past the limit, 400 with JSON-RPC -32700 for JSON that does not parse.
 */
export function readMcpBody(maxBytes: number): MiddlewareHandler {
  return async function readBody(c, next) {
    const read = await readLimited(c.req.raw, maxBytes);
    if (read.kind === "too_large") return c.json({ error: "body_too_large", limit: maxBytes }, 413);
    if (read.kind === "aborted") return c.body(null, 400);
    let parsed: unknown;
    try {
      parsed = JSON.parse(read.text);
    } catch {
      return parseError(c);
    }
    bodies.set(c.req.raw, { parsed, calls: Array.isArray(parsed) ? Math.max(1, parsed.length) : 1 });
    await next();
  };
}

type Read = { kind: "ok"; text: string } | { kind: "too_large" } | { kind: "aborted" };

async function readLimited(request: Request, maxBytes: number): Promise<Read> {
  if (request.body === null) return { kind: "ok", text: "" };
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel().catch(() => undefined);
        return { kind: "too_large" };
      }
      chunks.push(value);
    }
  } catch {
    // The client went away, or Node cut a body that outlived the request timeout.
    return { kind: "aborted" };
  }
  return { kind: "ok", text: Buffer.concat(chunks).toString("utf8") };
}

function parseError(c: Context): Response {
  return c.json(
    { jsonrpc: "2.0", error: { code: -32700, message: "Parse error: Invalid JSON" }, id: null },
    400,
  );
}
