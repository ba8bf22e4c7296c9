/**
 * @module The OAuth profile answers to one name: the issuer's host, with its port, exactly as a
 * browser or client sends it in `Host`. A refusal says what it saw, what it expected and how to
 * fix it: behind a reverse proxy the usual cause is a proxy that does not pass the original Host
 * (nginx sends its upstream address by default, and `$host` drops the port), so the answer names
 * the proxy line. Each distinct refused value is logged once (a misconfigured proxy would
 * otherwise write a line per request).
 */
import { checkHost } from "@t3-connector/core/http-edge";
import type { Context, MiddlewareHandler } from "hono";
import type { OAuthSettings } from "../settings/index.js";

export interface HostRefusal {
  readonly error: "host_not_allowed";
  readonly header: "Host";
  /** The Host the request carried (null: none). */
  readonly seen: string | null;
  readonly expected: string;
  readonly fix: string;
  readonly message: string;
}

const PASS_HOST =
  "behind nginx add `proxy_set_header Host $http_host;` to the location (Caddy's reverse_proxy passes Host unchanged); a tunnel must keep the public Host";

/** What a request with `Host: seen` is told. */
export function hostRefusal(
  seen: string | undefined,
  settings: Pick<OAuthSettings, "host" | "issuer">,
): HostRefusal {
  const expected = settings.host;
  const base = { error: "host_not_allowed", header: "Host", seen: seen ?? null, expected } as const;
  if (seen === undefined) {
    return {
      ...base,
      fix: PASS_HOST,
      message: `the request has no Host header; expected ${expected}: ${PASS_HOST}`,
    };
  }
  const seenName = hostName(seen);
  const expectedName = hostName(expected);
  let fix: string;
  if (seenName === expectedName) {
    fix = `the port is missing or differs: ${PASS_HOST.replace("the location", "the location (not `$host`, which drops the port)")}`;
  } else if (isAddressOrLoopback(seenName)) {
    fix = `this looks like the proxy's upstream address, not the name clients use: ${PASS_HOST}`;
  } else {
    fix = `clients must reach this server as ${settings.issuer}; if its public name changed, set oauth.issuer to the new origin (passkeys are bound to the name and must be enrolled again)`;
  }
  return {
    ...base,
    fix,
    message: `Host ${JSON.stringify(seen)} is not this server's name ${expected}: ${fix}`,
  };
}

/** Logs a refusal once per distinct Host value (at most 100 remembered). */
export class RefusalLog {
  readonly #seen = new Set<string>();

  constructor(private readonly log: (line: string) => void) {}

  note(refusal: HostRefusal, path: string): void {
    const key = refusal.seen ?? "";
    if (this.#seen.has(key) || this.#seen.size >= 100) return;
    this.#seen.add(key);
    // The seen value is the client's text: quoted as JSON, so it cannot forge a log line.
    this.log(
      `oauth: refused Host ${JSON.stringify(refusal.seen)} on ${path} (expected ${refusal.expected}): ${refusal.fix} (logged once per Host)`,
    );
  }
}

function hostName(host: string): string {
  const lower = host.toLowerCase();
  if (lower.startsWith("[")) return lower.slice(0, lower.indexOf("]") + 1);
  return lower.split(":")[0] ?? lower;
}

function isAddressOrLoopback(name: string): boolean {
  return name === "localhost" || name.startsWith("[") || /^\d+\.\d+\.\d+\.\d+$/.test(name);
}

/** Middleware: the issuer's Host only; anything else gets the refusal above (403, JSON). */
export function pinHost(
  settings: Pick<OAuthSettings, "host" | "issuer">,
  refusals: RefusalLog,
): MiddlewareHandler {
  return async function checkIssuerHost(c, next) {
    const refused = refuseForeignHost(c, settings, refusals);
    if (refused !== undefined) return refused;
    await next();
  };
}

/** The 403 for a request whose Host is not the issuer's; undefined when it is. */
export function refuseForeignHost(
  c: Context,
  settings: Pick<OAuthSettings, "host" | "issuer">,
  refusals: RefusalLog,
): Response | undefined {
  // Core's one Host check (ADR 0056); the issuer's host is kept in lower case.
  const verdict = checkHost(c.req.raw.headers, { hosts: new Set([settings.host]) });
  if (verdict.ok) return undefined;
  const refusal = hostRefusal(verdict.seen ?? undefined, settings);
  refusals.note(refusal, c.req.path);
  return c.json(refusal, 403);
}
