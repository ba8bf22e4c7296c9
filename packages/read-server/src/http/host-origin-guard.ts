import type { MiddlewareHandler } from "hono";
import { urlHost } from "./loopback.js";

/** Who may address this server: the `Host` values and browser `Origin`s accepted (lower case). */
export interface HostOriginAllowlist {
  readonly hosts: ReadonlySet<string>;
  readonly origins: ReadonlySet<string>;
}

const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "[::1]"];

/**
 * The allowlist against DNS rebinding: a page on a rebound name reaches our address but carries
 * its own name in `Host` (and its own `Origin`). Accepted by default: the bind host and the
 * loopback names, each with the port; plus what the operator adds for a tunnel or proxy. A
 * `--allowed-host NAME` without a port also matches `NAME` bare, as a proxy on 443 sends it.
 */
export function buildAllowlist(options: {
  host: string;
  port: number;
  allowedHosts: readonly string[];
  allowedOrigins: readonly string[];
}): HostOriginAllowlist {
  const names = new Set([...LOOPBACK_NAMES, urlHost(options.host).toLowerCase()]);
  const hosts = new Set<string>();
  const origins = new Set<string>();
  for (const name of names) {
    hosts.add(`${name}:${options.port}`);
    origins.add(`http://${name}:${options.port}`);
    // A client omits the default port from both.
    if (options.port === 80) {
      hosts.add(name);
      origins.add(`http://${name}`);
    }
  }
  for (const entry of options.allowedHosts) {
    const host = entry.toLowerCase();
    hosts.add(host);
    if (!hasPort(host)) hosts.add(`${host}:${options.port}`);
  }
  for (const origin of options.allowedOrigins) origins.add(origin.toLowerCase());
  return { hosts, origins };
}

/**
 * 403 when `Host` is not allowed, or when an `Origin` is sent and not allowed (MCP clients outside
 * a browser send none), with a JSON body naming the header and the flag that allows it: the
 * operator behind a tunnel or a proxy reads the fix from the client's error. Runs before
 * authentication, so a rebinding page learns nothing it did not send, not even whether a token is
 * required.
 */
export function hostOriginGuard(current: () => HostOriginAllowlist | undefined): MiddlewareHandler {
  return async function checkHostAndOrigin(c, next) {
    // Not listening yet: nothing is allowed.
    const allowlist = current();
    if (allowlist === undefined) {
      return c.json({ error: "forbidden", message: "the server is not listening yet; try again" }, 403);
    }
    const host = c.req.header("host")?.toLowerCase();
    const origin = c.req.header("origin")?.toLowerCase();
    if (host === undefined || !allowlist.hosts.has(host)) return c.json(refusedHost(host), 403);
    if (origin !== undefined && !allowlist.origins.has(origin)) return c.json(refusedOrigin(origin), 403);
    await next();
  };
}

/** What a refused Host answers: the header, its value, and the flag that would allow it. */
export function refusedHost(host: string | undefined): { error: string; header: string; message: string } {
  if (host === undefined) {
    return { error: "host_not_allowed", header: "Host", message: "the request has no Host header" };
  }
  const name = JSON.stringify(host);
  return {
    error: "host_not_allowed",
    header: "Host",
    message: `Host ${name} is not allowed: restart serve --http with --allowed-host ${host} if this server is meant to answer to that name.`,
  };
}

function refusedOrigin(origin: string): { error: string; header: string; message: string } {
  return {
    error: "origin_not_allowed",
    header: "Origin",
    message: `Origin ${JSON.stringify(origin)} is not allowed: restart serve --http with --allowed-origin ${origin} if that page should reach this server.`,
  };
}

/**
 * A valid `--allowed-host`: a DNS name or IP literal, optionally with a port. Returns the problem
 * or undefined. No scheme, path or wildcard: each name is one the operator means.
 */
export function allowedHostProblem(value: string): string | undefined {
  const match = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(?::(\d{1,5}))?$/.exec(value);
  if (match === null)
    return `--allowed-host takes NAME or NAME:PORT (no scheme, path or wildcard), got "${value}"`;
  if (match[2] !== undefined && Number(match[2]) > 65_535)
    return `--allowed-host has an invalid port: "${value}"`;
  return undefined;
}

/** A valid `--allowed-origin`: exactly an origin (`https://name[:port]`), nothing after it. */
export function allowedOriginProblem(value: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    return `--allowed-origin takes an origin such as https://chatgpt.com, got "${value}"`;
  }
  if (
    (parsed.protocol !== "https:" && parsed.protocol !== "http:") ||
    parsed.origin !== value.replace(/\/$/, "")
  ) {
    return `--allowed-origin takes an origin such as https://chatgpt.com (scheme, host, optional port; no path), got "${value}"`;
  }
  return undefined;
}

function hasPort(host: string): boolean {
  return host.startsWith("[") ? /\]:\d+$/.test(host) : host.includes(":");
}
