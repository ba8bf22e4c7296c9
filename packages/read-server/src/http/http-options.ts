/**
 * What `t3-connector serve --http` is told on its command line, and the limits it applies. The
 * defaults are the product's; tests narrow the limits to reach them quickly.
 */
export interface HttpServeOptions {
  /** Address to bind; loopback unless the operator says otherwise. */
  readonly host: string;
  /** 0 picks a free port (tests); the ready line says which. */
  readonly port: number;
  /** Bearer token file (mode 600); required when `host` is not loopback. */
  readonly authTokenFile?: string;
  /** Extra `Host` values, e.g. a tunnel's or reverse proxy's public name (`NAME` or `NAME:PORT`). */
  readonly allowedHosts: readonly string[];
  /** Extra browser origins, e.g. `https://chatgpt.com` (`scheme://host[:port]`). */
  readonly allowedOrigins: readonly string[];
  /**
   * `--oauth [--issuer URL]`: the OAuth session profile even without an `oauth` section (which
   * turns it on by itself); `issuer` overrides the section's.
   */
  readonly oauth?: { readonly issuer?: string };
  /**
   * `--trusted-proxy ADDR` (repeatable, or a comma list): the reverse proxies whose
   * `X-Forwarded-For` names the client, for the approval page's per-client budget (ADR 0044).
   */
  readonly trustedProxies?: readonly string[];
}

export interface HttpLimits {
  /**
   * Largest `/mcp` body. A read call's input is a few hundred bytes (a 20-item batch stays under
   * 4 KiB), so 64 KiB is generous and keeps a flood of large bodies cheap to refuse.
   */
  readonly maxBodyBytes: number;
  /**
   * Calls handled at once; one more gets 429. A JSON-RPC batch counts as its number of messages,
   * and a batch larger than this is refused outright (ADR 0020).
   */
  readonly maxConcurrentRequests: number;
  /** A request's headers must have arrived within this (Node's `headersTimeout`). */
  readonly headersTimeoutMs: number;
  /**
   * The whole request, headers and body, must have arrived within this (Node's `requestTimeout`).
   * The body is read before the call takes a concurrency slot, so a slow body holds no slot.
   */
  readonly requestTimeoutMs: number;
  /**
   * Open connections. Past it, a new connection closes the oldest one still waiting for its
   * headers or body, so connections that never finish a request cannot lock the server out.
   */
  readonly maxConnections: number;
  /**
   * How long shutdown waits for calls in flight. The longest read is bounded by the contract's
   * whole-call deadline (10 s; a wait is at most 5 s), so 12 s lets every call finish.
   */
  readonly drainTimeoutMs: number;
}

export const DEFAULT_HTTP_HOST = "127.0.0.1";
export const DEFAULT_HTTP_PORT = 8000;

export const DEFAULT_HTTP_LIMITS: HttpLimits = Object.freeze({
  maxBodyBytes: 64 * 1024,
  maxConcurrentRequests: 16,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  maxConnections: 256,
  drainTimeoutMs: 12_000,
});

/** The MCP endpoint's path: the one clients and tunnels are told (`--mcp.server-url …/mcp`). */
export const MCP_PATH = "/mcp";
