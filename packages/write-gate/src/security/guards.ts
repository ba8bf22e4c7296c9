/**
 * @module The request checks every gate route passes, each a small
 * middleware factory. The socket only listens on 127.0.0.1 (the process's job); these stop a
 * page on another origin, or a DNS-rebound name, from reaching the gate through the browser.
 */
import { type Clock, ConnectorError } from "@t3-connector/core";
import {
  type BoundedRead,
  checkHost,
  checkOrigin,
  edgeNames,
  type NodeRequestBody,
  type OriginRule,
  parseJsonBytes,
  RequestBudget,
  readBoundedBody,
  readBoundedRequest,
} from "@t3-connector/core/http-edge";
import { PASSKEY_PAGE_CSP, passkeyPageCspHeader } from "@t3-connector/core/passkeys";
import { type Context, Hono, type MiddlewareHandler } from "hono";
import { secureHeaders } from "hono/secure-headers";

/**
 * `Host` must be `localhost:<port>` (a rebound DNS name carries its own host), by core's one Host
 * check (ADR 0056).
 */
export function hostGuard(options: { port: number }): MiddlewareHandler {
  const expected = `localhost:${options.port}`;
  const names = edgeNames([expected]);
  // A person who typed 127.0.0.1 (or another name) needs the one address that works. The text
  // tells a rebinding page nothing it did not know: it already reached this port.
  const refusal = `The write gate answers only at http://${expected}/ - open that address.\n`;
  return async function checkGateHost(c, next) {
    if (!checkHost(c.req.raw.headers, names).ok) {
      return c.body(refusal, 403, { "Content-Type": "text/plain; charset=utf-8" });
    }
    await next();
  };
}

const LOOPBACK: ReadonlySet<string> = new Set(["127.0.0.1", "::ffff:127.0.0.1", "::1"]);

/** A peer on loopback (the address of a socket that has one). */
export function isLoopbackAddress(address: string): boolean {
  return LOOPBACK.has(address);
}

/**
 * The peer must be on loopback (defence in depth behind the 127.0.0.1 bind). Under
 * `app.request` there is no socket, so there is no address to check.
 */
export function loopbackGuard(): MiddlewareHandler {
  return async function checkLoopback(c, next) {
    const address = socketAddress(c);
    if (address !== undefined && !isLoopbackAddress(address)) return c.body(null, 403);
    await next();
  };
}

/**
 * A state-changing route: POST, `Origin` exactly the gate's (or, for the page from afar, the public
 * origin it is reached at, ADR 0050), `Content-Type` exactly JSON.
 */
export function stateChangeGuard(options: { port: number; origin?: string }): MiddlewareHandler {
  const names = edgeNames([], [options.origin ?? pageOrigin(options.port)]);
  return async function checkStateChange(c, next) {
    if (c.req.method !== "POST" || !originIs(c, names, "required") || !isJson(c)) {
      throw new ConnectorError(
        "origin_or_method_invalid",
        "state changes come only as JSON POSTs from the gate's own page",
      );
    }
    await next();
  };
}

/** The machine route (`/relay`): POST and JSON, and no `Origin` at all, since no browser may call it. */
export function machineRouteGuard(): MiddlewareHandler {
  const names = edgeNames([]);
  return async function checkMachineRoute(c, next) {
    if (c.req.method !== "POST" || !originIs(c, names, "forbidden") || !isJson(c)) {
      throw new ConnectorError(
        "origin_or_method_invalid",
        "the relay takes only JSON POSTs, and no Origin (no browser may call it)",
      );
    }
    await next();
  };
}

/** The gate page's own origin. */
export function pageOrigin(port: number): string {
  return `http://localhost:${port}`;
}

/** Core's one Origin check (ADR 0056) under `rule`. */
export function originIs(c: Context, names: ReturnType<typeof edgeNames>, rule: OriginRule): boolean {
  return checkOrigin(c.req.raw.headers, names, rule).ok;
}

function isJson(c: Context): boolean {
  return isJsonContentType(c.req.header("content-type"));
}

/** `Content-Type` exactly JSON: `application/json`, at most with `charset=utf-8`. */
export function isJsonContentType(type: string | undefined): boolean {
  if (type === undefined) return false;
  const [media, ...parameters] = type.split(";").map((part) => part.trim().toLowerCase());
  if (media !== "application/json") return false;
  return parameters.every((parameter) => parameter === "" || parameter === "charset=utf-8");
}

/**
 * Reads the JSON body, at most `maxBytes` of it, with core's one bounded reader (ADR 0056): a
 * declared length over the cap is refused unread, a body without one (chunked) is counted as it
 * arrives and refused at the first chunk past the cap. Run where a route reads its body, not as a
 * route middleware: that would read a chunked body before the relay checks the capability and
 * before the budget is charged. An empty body is `{}`.
 */
export async function readJsonBody(c: Context, maxBytes: number): Promise<unknown> {
  // Under the Node server, straight from Node's request: building the web Request around it cost
  // more than the rest of the relay's own work (ADR 0066). Elsewhere (`app.request`), the Request.
  const incoming = (c.env as { incoming?: NodeRequestBody } | undefined)?.incoming;
  if (incoming !== undefined) return readJsonRequest(incoming, maxBytes);
  return jsonOf(await readBoundedBody(c.req.raw, { maxBytes }));
}

/** The same read, of a request Node's server took: what `readJsonBody` does under it. */
export async function readJsonRequest(incoming: NodeRequestBody, maxBytes: number): Promise<unknown> {
  return jsonOf(await readBoundedRequest(incoming, { maxBytes }));
}

/** The body read as its JSON value, or the route's refusal: too large, or not JSON. */
function jsonOf(read: BoundedRead): unknown {
  if (read.kind === "too_large") {
    throw new ConnectorError("body_too_large", "the request body is over the limit");
  }
  if (read.kind === "ok" && read.bytes.byteLength === 0) return {};
  const body = read.kind === "ok" ? parseJsonBytes(read.bytes) : undefined;
  if (body?.kind !== "json") {
    throw new ConnectorError("body_invalid", "the request body is not the JSON this route takes");
  }
  return body.value;
}

export interface RateLimitOptions {
  readonly clock: Clock;
  /** Requests per window per client address. Default 60. */
  readonly limit?: number;
  /** Default 60 s. */
  readonly windowMs?: number;
  /** The table never grows past this many addresses. Default 1000. */
  readonly maxEntries?: number;
}

/**
 * The gate's budgets: core's per-address `RequestBudget` (shared with the OAuth routes, ADR 0033, 0072)
 * keyed by the request's socket address. The page and the relay each get one, so neither can
 * spend the other's requests. Callers charge it only for requests that already passed every
 * check, so a refused request costs nothing.
 */
export class AddressBudget {
  readonly #budget: RequestBudget;

  constructor(options: RateLimitOptions) {
    this.#budget = new RequestBudget({
      ...options,
      limit: options.limit ?? 60,
      message: "too many requests from this address; try again in a minute",
    });
  }

  /**
   * Counts one request from this client (the socket's address, or the key of a client `serve`
   * vouched for, ADR 0044); throws 429 `rate_limited` past the limit.
   */
  charge(c: Context, vouched?: string): void {
    this.#budget.charge(vouched ?? clientAddress(c));
  }

  /** Counts one request from the socket address `address`, as `charge` does for its context. */
  chargeAddress(address: string): void {
    this.#budget.charge(address);
  }
}

/** The socket's remote address under @hono/node-server. */
function socketAddress(c: Context): string | undefined {
  const env = c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined;
  return env?.incoming?.socket?.remoteAddress;
}

/** One shared bucket when there is no socket. */
function clientAddress(c: Context): string {
  return socketAddress(c) ?? "local";
}

/** The page loads only its own files, is framed by nobody and submits nowhere (core's passkey page policy). */
export const CONTENT_SECURITY_POLICY = passkeyPageCspHeader();

/**
 * Set on every answer, errors included: Hono's secure headers (nosniff, no-referrer, COOP and CORP
 * same-origin, the CSP above, `X-Frame-Options: DENY`, …) and `Cache-Control: no-store`, which
 * it does not cover. No HSTS: the gate is plain http on localhost, there is nothing to pin.
 */
export function securityHeaders(): MiddlewareHandler {
  const secure = secureHeaders({
    // The directives of CONTENT_SECURITY_POLICY, which a test compares with the header sent.
    contentSecurityPolicy: { ...PASSKEY_PAGE_CSP },
    xFrameOptions: "DENY",
    strictTransportSecurity: false,
  });
  return async function setSecurityHeaders(c, next) {
    await secure(c, next);
    c.res.headers.set("Cache-Control", "no-store");
  };
}

/**
 * The headers of the gate's JSON answers as `securityHeaders` and `c.json` set them (the length
 * aside), taken once from an answer they made: an answer written without Hono (the relay's door)
 * sends them, so it carries the same headers as every other answer, byte for byte.
 */
export async function jsonAnswerHeaders(): Promise<Readonly<Record<string, string>>> {
  const app = new Hono();
  app.use(securityHeaders());
  app.get("/", (c) => c.json({}));
  const headers: Record<string, string> = {};
  for (const [name, value] of (await app.request("/")).headers) {
    if (name !== "content-length") headers[name] = value;
  }
  return headers;
}
