/**
 * The approval page from afar (ADR 0050): `serve --http` answers `/approve` and its calls on the
 * issuer's origin by forwarding them to the gate's loopback port, so one proxy rule in front of one
 * upstream serves sign-in, MCP and approval. Host is pinned to the issuer here (as on the OAuth
 * pages), a foreign Origin was refused before (the Host/Origin allowlist), and the page's Origin
 * goes to the gate as sent: the gate checks it is the issuer's, and every decision needs a passkey
 * assertion made on this origin. Nothing but the request line, its body and the few headers the
 * gate reads crosses; the gate's answer comes back with its own security headers.
 */
import { request as httpRequest } from "node:http";
import type { Context, Hono } from "hono";

/** The page's calls are small JSON bodies; the gate's own limit is 64 KiB. */
const MAX_FORWARD_BYTES = 65_536;
const FORWARD_TIMEOUT_MS = 10_000;
/** The gate's answer headers passed on: its type and its security headers. */
const PASSED_HEADERS = [
  "content-type",
  "content-security-policy",
  "x-frame-options",
  "x-content-type-options",
  "referrer-policy",
  "cross-origin-opener-policy",
  "cross-origin-resource-policy",
  "permissions-policy",
];

export interface ApprovalForward {
  /** The issuer's Host: the only one these routes answer. */
  readonly issuerHost: string;
  /** The gate's loopback port (write config `port`). */
  readonly gatePort: number;
}

export function mountApprovalForward(app: Hono, options: ApprovalForward): void {
  const forward = async (c: Context) => {
    if (c.req.header("host") !== options.issuerHost) return c.body(null, 403);
    if (c.req.method !== "GET" && c.req.method !== "POST") return c.body(null, 405);
    const body = c.req.method === "POST" ? await readLimited(c.req.raw) : undefined;
    if (body === null) return c.json({ error: "body_too_large" }, 413);
    const url = new URL(c.req.url);
    try {
      return await toGate(options.gatePort, {
        method: c.req.method,
        path: `${url.pathname}${url.search}`,
        origin: c.req.header("origin"),
        contentType: c.req.header("content-type"),
        body,
      });
    } catch {
      return c.json({ error: "gate_unavailable", message: "the gate does not answer; is it running?" }, 502);
    }
  };
  app.all("/approve", forward);
  app.all("/approve/*", forward);
}

async function readLimited(request: Request): Promise<Buffer | null> {
  const bytes = Buffer.from(await request.arrayBuffer());
  return bytes.length > MAX_FORWARD_BYTES ? null : bytes;
}

interface Forwarded {
  readonly method: string;
  readonly path: string;
  readonly origin: string | undefined;
  readonly contentType: string | undefined;
  readonly body: Buffer | undefined;
}

function toGate(port: number, sent: Forwarded): Promise<Response> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      {
        host: "127.0.0.1",
        port,
        method: sent.method,
        path: sent.path,
        // The gate pins its Host to localhost:<port> (DNS-rebinding defence) and reads nothing else.
        headers: {
          host: `localhost:${port}`,
          ...(sent.origin === undefined ? {} : { origin: sent.origin }),
          ...(sent.contentType === undefined ? {} : { "content-type": sent.contentType }),
          ...(sent.body === undefined ? {} : { "content-length": sent.body.length }),
        },
        signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
      },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on("data", (chunk: Buffer) => chunks.push(chunk));
        answer.on("error", reject);
        answer.on("end", () => {
          const headers = new Headers();
          for (const name of PASSED_HEADERS) {
            const value = answer.headers[name];
            if (typeof value === "string") headers.set(name, value);
          }
          resolve(new Response(Buffer.concat(chunks), { status: answer.statusCode ?? 502, headers }));
        });
      },
    );
    outgoing.on("error", reject);
    outgoing.end(sent.body);
  });
}
