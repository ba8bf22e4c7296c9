import { checkHostOrigin, type EdgeNames } from "@t3-connector/core/http-edge";
import type { MiddlewareHandler } from "hono";
import { urlHost } from "./loopback.js";

/**
 * Who may address this server: the `Host` values and browser `Origin`s accepted (lower case),
 * checked by core's one Host/Origin check (`core/http-edge`, ADR 0056).
 */
export interface HostOriginAllowlist extends EdgeNames {
  /**
   * What a refused Host is told instead of the `--allowed-host` advice (the OAuth profile: the
   * issuer's name is the only right one, and the fix is usually the proxy's Host line).
   */
  readonly refuseHost?: (seen: string | undefined, path: string) => object;
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
export function hostOriginGuard(
  current: () => HostOriginAllowlist | undefined,
  logRefusal: (line: string) => void = () => {},
): MiddlewareHandler {
  const logged = new Set<string>();
  // One line per distinct refused value: a misconfigured proxy would otherwise log every request.
  const logOnce = (refusal: { header: string; seen: string | null; message: string }) => {
    const key = `${refusal.header} ${refusal.seen ?? ""}`;
    if (logged.has(key) || logged.size >= 100) return;
    logged.add(key);
    logRefusal(`http: refused ${refusal.header} ${JSON.stringify(refusal.seen)}: ${refusal.message}`);
  };
  return async function checkHostAndOrigin(c, next) {
    // Not listening yet: nothing is allowed.
    const allowlist = current();
    if (allowlist === undefined) {
      return c.json({ error: "forbidden", message: "the server is not listening yet; try again" }, 403);
    }
    const verdict = checkHostOrigin(c.req.raw.headers, allowlist, "optional");
    if (!verdict.ok && verdict.header === "Host") {
      const host = verdict.seen ?? undefined;
      if (allowlist.refuseHost !== undefined) return c.json(allowlist.refuseHost(host, c.req.path), 403);
      const refusal = refusedHost(host, allowlist);
      logOnce(refusal);
      return c.json(refusal, 403);
    }
    if (!verdict.ok) {
      const refusal = refusedOrigin(verdict.seen ?? "", allowlist);
      logOnce(refusal);
      return c.json(refusal, 403);
    }
    await next();
  };
}

interface Refusal {
  error: string;
  header: string;
  /** The value the request carried (null: none). */
  seen: string | null;
  /** What would have been accepted. */
  expected: string[];
  /** The flag or proxy line that fixes it. */
  fix: string;
  message: string;
}

/** What a refused Host answers: the header, what it saw and expected, and the flag that allows it. */
export function refusedHost(
  host: string | undefined,
  allowlist: Pick<HostOriginAllowlist, "hosts"> = { hosts: new Set() },
): Refusal {
  const expected = [...allowlist.hosts];
  if (host === undefined) {
    const fix = "send a Host header; behind nginx: proxy_set_header Host $http_host;";
    return {
      error: "host_not_allowed",
      header: "Host",
      seen: null,
      expected,
      fix,
      message: `the request has no Host header: ${fix}`,
    };
  }
  const fix = `--allowed-host ${host}`;
  return {
    error: "host_not_allowed",
    header: "Host",
    seen: host,
    expected,
    fix,
    message: `Host ${JSON.stringify(host)} is not allowed: restart serve --http with ${fix} if this server is meant to answer to that name.`,
  };
}

function refusedOrigin(origin: string, allowlist: Pick<HostOriginAllowlist, "origins">): Refusal {
  const fix = `--allowed-origin ${origin}`;
  return {
    error: "origin_not_allowed",
    header: "Origin",
    seen: origin,
    expected: [...allowlist.origins],
    fix,
    message: `Origin ${JSON.stringify(origin)} is not allowed: restart serve --http with ${fix} if that page should reach this server.`,
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
