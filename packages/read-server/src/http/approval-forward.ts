/**
 * The approval page from afar (ADR 0050): `serve --http` answers `/approve` and its calls on the
 * issuer's origin by forwarding them to the gate's loopback port, so one proxy rule in front of one
 * upstream serves sign-in, MCP and approval. Host is pinned to the issuer here (as on the OAuth
 * pages), a foreign Origin was refused before (the Host/Origin allowlist), and the page's Origin
 * goes to the gate as sent: the gate checks it is the issuer's, and every decision needs a passkey
 * assertion made on this origin. Nothing but the request line, its body and the few headers the
 * gate reads crosses; the gate's answer comes back with its own security headers. With them goes
 * the client's address (the peer, or what a `--trusted-proxy` reports, ADR 0044) and the gate's
 * relay capability that vouches for it, so the gate budgets each client behind a proxy apart.
 */
import { request as httpRequest } from "node:http";
import { Readable } from "node:stream";
import {
  checkHost,
  edgeNames,
  FORWARD_CAPABILITY_HEADER,
  FORWARDED_CLIENT_HEADER,
  hostAndOrigin,
  readBoundedBody,
} from "@t3-connector/core/http-edge";
import { readCapability } from "@t3-connector/write-bridge";
import type { Context, Hono } from "hono";
import type { RequestClients } from "./request-clients.js";

/** The page's calls are small JSON bodies; the gate's own limit is 64 KiB. */
const MAX_FORWARD_BYTES = 65_536;
const FORWARD_TIMEOUT_MS = 10_000;
/** The gate's pages and scripts are far smaller; a bound on what one forwarded answer holds. */
const MAX_GATE_ANSWER_BYTES = 8 * 1024 * 1024;
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
  /** The gate's state directory, where its relay capability is read (write config `stateDir`). */
  readonly gateStateDir: string;
  /** Which client a request came from (ADR 0044: the peer, or what a `--trusted-proxy` reports). */
  readonly clients: RequestClients;
}

export function mountApprovalForward(app: Hono, options: ApprovalForward): void {
  const issuer = edgeNames([options.issuerHost]);
  const vouch = voucher(options);
  const forward = async (c: Context) => {
    if (!checkHost(c.req.raw.headers, issuer).ok) return c.body(null, 403);
    if (c.req.method !== "GET" && c.req.method !== "POST") return c.body(null, 405);
    const read =
      c.req.method === "POST" ? await readBoundedBody(c.req.raw, { maxBytes: MAX_FORWARD_BYTES }) : undefined;
    if (read?.kind === "too_large") return c.json({ error: "body_too_large" }, 413);
    if (read !== undefined && read.kind !== "ok") return c.body(null, 400);
    const body = read?.kind === "ok" ? read.bytes : undefined;
    const url = new URL(c.req.url);
    try {
      return await toGate(options.gatePort, {
        method: c.req.method,
        path: `${url.pathname}${url.search}`,
        origin: hostAndOrigin(c.req.raw.headers).origin,
        client: await vouch(c),
        contentType: c.req.header("content-type"),
        body,
      });
    } catch {
      return c.json({ error: "gate_unavailable", message: "the gate does not answer; is it running?" }, 502);
    }
  };
  app.all("/approve", forward);
  app.all("/approve/*", forward);
  // The person's inbox (ADR 0073): the same forward, hardened as the approval page is.
  app.all("/inbox", forward);
  app.all("/inbox/*", forward);
}

/** The client's address and the capability that vouches for it, or nothing while no gate runs. */
type Vouched = { readonly address: string; readonly capability: string } | undefined;

function voucher(options: ApprovalForward): (c: Context) => Promise<Vouched> {
  const cache = {};
  return async (c) => {
    const address = options.clients.addressOf(c);
    // No capability (no gate running, or its file not ours): the gate counts serve's socket, as before.
    const capability = await readCapability(options.gateStateDir, {}, cache).catch(() => undefined);
    return capability === undefined ? undefined : { address, capability };
  };
}

interface Forwarded {
  readonly method: string;
  readonly path: string;
  readonly origin: string | undefined;
  readonly client: Vouched;
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
        // The gate pins its Host to localhost:<port> (DNS-rebinding defence) and reads nothing else
        // but the client's address, which it trusts only beside its own relay capability.
        headers: {
          host: `localhost:${port}`,
          ...(sent.origin === undefined ? {} : { origin: sent.origin }),
          // Set here only, never copied from the request: a client's own copy never crosses.
          ...(sent.client === undefined
            ? {}
            : {
                [FORWARDED_CLIENT_HEADER]: sent.client.address,
                [FORWARD_CAPABILITY_HEADER]: sent.client.capability,
              }),
          ...(sent.contentType === undefined ? {} : { "content-type": sent.contentType }),
          ...(sent.body === undefined ? {} : { "content-length": sent.body.length }),
        },
        signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
      },
      (answer) => {
        const headers = new Headers();
        for (const name of PASSED_HEADERS) {
          const value = answer.headers[name];
          if (typeof value === "string") headers.set(name, value);
        }
        // The gate's answer, read with core's one bounded reader: the gate is ours, the bound is
        // what this process holds per forwarded answer whatever it sends.
        const stream = Readable.toWeb(answer) as ReadableStream<Uint8Array>;
        readBoundedBody(new Response(stream), { maxBytes: MAX_GATE_ANSWER_BYTES }).then((read) => {
          if (read.kind !== "ok") return reject(new Error(`the gate's answer was ${read.kind}`));
          resolve(new Response(read.bytes, { status: answer.statusCode ?? 502, headers }));
        }, reject);
      },
    );
    outgoing.on("error", reject);
    outgoing.end(sent.body);
  });
}
