/**
 * @module The request checks every gate route passes (connector-contract §D.5), each a small
 * middleware factory. The socket only listens on 127.0.0.1 (the process's job); these stop a
 * page on another origin, or a DNS-rebound name, from reaching the gate through the browser.
 */
import type { Clock } from "@t3-connector/core";
import type { Context, MiddlewareHandler } from "hono";
import { GateHttpError } from "./gate-error.js";

/** `Host` must be exactly `localhost:<port>` (a rebound DNS name carries its own host). */
export function hostGuard(options: { port: number }): MiddlewareHandler {
  const expected = `localhost:${options.port}`;
  // A person who typed 127.0.0.1 (or another name) needs the one address that works. The text
  // tells a rebinding page nothing it did not know: it already reached this port.
  const refusal = `The write gate answers only at http://${expected}/ - open that address.\n`;
  return async function checkHost(c, next) {
    if (c.req.header("host") !== expected) {
      return c.body(refusal, 403, { "Content-Type": "text/plain; charset=utf-8" });
    }
    await next();
  };
}

const LOOPBACK = new Set(["127.0.0.1", "::ffff:127.0.0.1", "::1"]);

/**
 * The peer must be on loopback (defence in depth behind the 127.0.0.1 bind). Under
 * `app.request` there is no socket, so there is no address to check.
 */
export function loopbackGuard(): MiddlewareHandler {
  return async function checkLoopback(c, next) {
    const address = socketAddress(c);
    if (address !== undefined && !LOOPBACK.has(address)) return c.body(null, 403);
    await next();
  };
}

/** A state-changing route: POST, `Origin` exactly the gate's, `Content-Type` exactly JSON. */
export function stateChangeGuard(options: { port: number }): MiddlewareHandler {
  const origin = `http://localhost:${options.port}`;
  return async function checkStateChange(c, next) {
    if (c.req.method !== "POST" || c.req.header("origin") !== origin || !isJson(c)) {
      throw new GateHttpError(403, "origin_or_method_invalid");
    }
    await next();
  };
}

/** The machine route (`/relay`): POST and JSON, and no `Origin` at all, since no browser may call it. */
export function machineRouteGuard(): MiddlewareHandler {
  return async function checkMachineRoute(c, next) {
    if (c.req.method !== "POST" || c.req.header("origin") !== undefined || !isJson(c)) {
      throw new GateHttpError(403, "origin_or_method_invalid");
    }
    await next();
  };
}

function isJson(c: Context): boolean {
  const type = c.req.header("content-type");
  if (type === undefined) return false;
  const [media, ...parameters] = type.split(";").map((part) => part.trim().toLowerCase());
  if (media !== "application/json") return false;
  return parameters.every((parameter) => parameter === "" || parameter === "charset=utf-8");
}

/**
 * Reads at most `maxBytes` of the body (the declared length is checked first, the counted bytes
 * always), so a chunked upload cannot grow past the cap either.
 */
export async function readJsonBody(c: Context, maxBytes: number): Promise<unknown> {
  const declared = c.req.header("content-length");
  if (declared !== undefined && Number(declared) > maxBytes) throw new GateHttpError(413, "body_too_large");
  const body = c.req.raw.body;
  let text = "";
  if (body !== null) {
    const reader = body.getReader();
    const decoder = new TextDecoder("utf-8", { fatal: true });
    let total = 0;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        total += value.byteLength;
        if (total > maxBytes) {
          await reader.cancel();
          throw new GateHttpError(413, "body_too_large");
        }
        text += decoder.decode(value, { stream: true });
      }
      text += decoder.decode();
    } catch (error) {
      if (error instanceof GateHttpError) throw error;
      throw new GateHttpError(400, "body_invalid");
    }
  }
  if (text === "") return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new GateHttpError(400, "body_invalid");
  }
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
 * A fixed-window counter per client address, with a capped table. Each budget is its own table:
 * the page and the relay each get one, so neither can spend the other's requests. Callers charge
 * it only for requests that already passed every check, so a refused request costs nothing.
 */
export class RateBudget {
  private readonly table = new Map<string, { start: number; count: number }>();
  private readonly clock: Clock;
  private readonly limit: number;
  private readonly windowMs: number;
  private readonly maxEntries: number;

  constructor(options: RateLimitOptions) {
    this.clock = options.clock;
    this.limit = options.limit ?? 60;
    this.windowMs = options.windowMs ?? 60_000;
    this.maxEntries = options.maxEntries ?? 1000;
  }

  /** Counts one request from this client; throws 429 `rate_limited` past the limit. */
  charge(c: Context): void {
    const now = this.clock.monotonic();
    const key = clientAddress(c);
    let entry = this.table.get(key);
    if (entry === undefined || now - entry.start >= this.windowMs) {
      if (entry === undefined && this.table.size >= this.maxEntries) {
        for (const [address, old] of this.table)
          if (now - old.start >= this.windowMs) this.table.delete(address);
        // Still full: every other address is busy right now, so the newcomer waits its turn.
        if (this.table.size >= this.maxEntries) throw new GateHttpError(429, "rate_limited");
      }
      entry = { start: now, count: 0 };
      this.table.set(key, entry);
    }
    entry.count += 1;
    if (entry.count > this.limit) throw new GateHttpError(429, "rate_limited");
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

export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join("; ");

/** Set on every answer, errors included. */
export function securityHeaders(): MiddlewareHandler {
  return async function setSecurityHeaders(c, next) {
    await next();
    c.res.headers.set("Cache-Control", "no-store");
    c.res.headers.set("X-Content-Type-Options", "nosniff");
    c.res.headers.set("Referrer-Policy", "no-referrer");
    c.res.headers.set("Content-Security-Policy", CONTENT_SECURITY_POLICY);
    c.res.headers.set("Cross-Origin-Opener-Policy", "same-origin");
    c.res.headers.set("Cross-Origin-Resource-Policy", "same-origin");
    c.res.headers.set("X-Frame-Options", "DENY");
  };
}
