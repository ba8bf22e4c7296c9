import { isIP } from "node:net";
import { requireValue, usageProblem, valueOnce } from "@t3-connector/core/cli-support";
import type { Command } from "commander";
import { allowedHostProblem, allowedOriginProblem } from "./host-origin-guard.js";
import { DEFAULT_HTTP_URL } from "./http-client-config.js";
import { DEFAULT_HTTP_HOST, DEFAULT_HTTP_PORT, type HttpServeOptions } from "./http-options.js";

/** What commander collects from `serve`'s HTTP flags (see withHttpServeOptions). */
export interface HttpServeFlags {
  http?: boolean;
  host?: string;
  port?: string;
  authTokenFile?: string;
  allowedHost?: string[];
  allowedOrigin?: string[];
  oauth?: boolean;
  issuer?: string;
  trustedProxy?: string[];
}

/**
 * `serve`'s HTTP flags: `--http [--host H] [--port P] [--auth-token-file F] [--allowed-host N]…
 * [--allowed-origin O]… [--trusted-proxy A]…`. The allow-lists and the trusted proxies repeat;
 * every other flag is given at most once.
 */
export function withHttpServeOptions(command: Command): Command {
  return command
    .option("--http", "serve MCP over Streamable HTTP at /mcp instead of stdio")
    .option("--host <address>", `address to bind (default ${DEFAULT_HTTP_HOST})`, valueOnce("--host"))
    .option("--port <port>", `port (default ${DEFAULT_HTTP_PORT}; 0 picks a free one)`, valueOnce("--port"))
    .option("--auth-token-file <file>", "bearer token file (mode 600)", valueOnce("--auth-token-file"))
    .option("--allowed-host <name>", "another Host to accept (repeatable)", repeated("--allowed-host"))
    .option(
      "--allowed-origin <origin>",
      "a browser Origin to accept (repeatable)",
      repeated("--allowed-origin"),
    )
    .option("--oauth", "require OAuth (the OAuth session profile; on by itself with an oauth config section)")
    .option(
      "--issuer <url>",
      "the OAuth issuer: the public https origin (or http://localhost:PORT)",
      valueOnce("--issuer"),
    )
    .option(
      "--trusted-proxy <address>",
      "a reverse proxy's IP whose X-Forwarded-For names the client (repeatable or comma list)",
      repeated("--trusted-proxy"),
    );
}

/**
 * The HTTP options of `serve`, or undefined for stdio. An HTTP flag without `--http` is refused
 * rather than ignored (the operator meant something). Throws a usage problem (invalid_input).
 */
export function httpServeOptionsOf(flags: HttpServeFlags): HttpServeOptions | undefined {
  if (flags.http !== true) {
    const stray = (
      [
        ["--host", flags.host],
        ["--port", flags.port],
        ["--auth-token-file", flags.authTokenFile],
        ["--allowed-host", flags.allowedHost],
        ["--allowed-origin", flags.allowedOrigin],
        ["--oauth", flags.oauth],
        ["--issuer", flags.issuer],
        ["--trusted-proxy", flags.trustedProxy],
      ] as const
    ).find(([, value]) => value !== undefined);
    if (stray !== undefined) throw usageProblem(`${stray[0]} needs --http`);
    return undefined;
  }
  const port = Number(flags.port ?? DEFAULT_HTTP_PORT);
  if (!/^\d+$/.test(String(flags.port ?? DEFAULT_HTTP_PORT)) || port > 65_535) {
    throw usageProblem("--port takes a port number from 0 to 65535 (0 picks a free one)");
  }
  const allowedHosts = flags.allowedHost ?? [];
  const allowedOrigins = flags.allowedOrigin ?? [];
  const trustedProxies = (flags.trustedProxy ?? []).flatMap((value) =>
    value.split(",").map((address) => address.trim()),
  );
  const problem =
    allowedHosts.map(allowedHostProblem).find((found) => found !== undefined) ??
    allowedOrigins.map(allowedOriginProblem).find((found) => found !== undefined) ??
    trustedProxies.map(trustedProxyProblem).find((found) => found !== undefined);
  if (problem !== undefined) throw usageProblem(problem);
  if (flags.issuer !== undefined && flags.oauth !== true) throw usageProblem("--issuer needs --oauth");
  if (flags.oauth === true && flags.authTokenFile !== undefined) {
    throw usageProblem("--oauth and --auth-token-file exclude each other: choose one");
  }
  return {
    host: flags.host ?? DEFAULT_HTTP_HOST,
    port,
    ...(flags.authTokenFile === undefined ? {} : { authTokenFile: flags.authTokenFile }),
    allowedHosts,
    allowedOrigins: allowedOrigins.map((origin) => new URL(origin).origin),
    ...(flags.oauth === true ? { oauth: flags.issuer === undefined ? {} : { issuer: flags.issuer } } : {}),
    ...(trustedProxies.length === 0 ? {} : { trustedProxies }),
  };
}

/**
 * `--trusted-proxy` values: IP addresses (ADR 0044). Checked here, not in `client-address.ts`,
 * which only `serve --http` loads.
 */
function trustedProxyProblem(value: string): string | undefined {
  return isIP(value) === 0
    ? `--trusted-proxy takes the proxy's IP address as serve sees it (e.g. 127.0.0.1), not "${value}"`
    : undefined;
}

/** `client-config <client>`'s `--http [--url U]`. */
export function withClientConfigHttpOptions(command: Command): Command {
  return command
    .option("--http", "print the config that reaches a running serve --http")
    .option(
      "--url <url>",
      `its MCP URL (default: the oauth issuer's /mcp, else ${DEFAULT_HTTP_URL})`,
      valueOnce("--url"),
    );
}

/**
 * `{url?}` for `--http`, undefined without it; `--url` alone or not an http(s) URL is refused.
 * Without `--url` the command takes the URL from the read config (the OAuth issuer's `/mcp`) or
 * the default.
 */
export function clientConfigHttpOf(flags: { http?: boolean; url?: string }): { url?: string } | undefined {
  if (flags.http !== true) {
    if (flags.url !== undefined) throw usageProblem("--url needs --http");
    return undefined;
  }
  if (flags.url === undefined) return {};
  if (!/^https?:\/\/\S+$/.test(flags.url) || !URL.canParse(flags.url)) {
    throw usageProblem("--url takes the server's MCP URL, e.g. http://127.0.0.1:8000/mcp");
  }
  return { url: flags.url };
}

/** A repeatable `--flag value`: every value kept, in order. */
function repeated(flag: string) {
  return (value: string, previous: string[] | undefined): string[] => [
    ...(previous ?? []),
    requireValue(flag, value),
  ];
}
