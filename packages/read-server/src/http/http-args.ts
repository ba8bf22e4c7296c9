import { isLogLevel, LOG_LEVELS, type LogLevel } from "@t3-connector/core/cli-support";
import { allowedHostProblem, allowedOriginProblem } from "./host-origin-guard.js";
import { DEFAULT_HTTP_URL } from "./http-client-config.js";
import { DEFAULT_HTTP_HOST, DEFAULT_HTTP_PORT, type HttpServeOptions } from "./http-options.js";

/** `serve`'s flags: `--log-level` always; `--http` and the flags that only make sense with it. */
export type ServeArgs = { logLevel: LogLevel; http?: HttpServeOptions } | { problem: string };

const VALUE_FLAGS = [
  "--log-level",
  "--host",
  "--port",
  "--auth-token-file",
  "--allowed-host",
  "--allowed-origin",
];
const REPEATABLE = new Set(["--allowed-host", "--allowed-origin"]);

/**
 * `serve [--log-level L] [--http [--host H] [--port P] [--auth-token-file F] [--allowed-host N]…
 * [--allowed-origin O]…]`. `--name value` or `--name=value`; the two allow-lists repeat, every
 * other flag is given at most once. An HTTP flag without `--http` is refused rather than ignored.
 */
export function parseServeArgs(args: readonly string[]): ServeArgs {
  let http = false;
  const single = new Map<string, string>();
  const repeated = new Map<string, string[]>([...REPEATABLE].map((flag) => [flag, []]));
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] ?? "";
    if (arg === "--http") {
      if (http) return { problem: "--http given twice" };
      http = true;
      continue;
    }
    const at = arg.indexOf("=");
    const flag = at > 0 ? arg.slice(0, at) : arg;
    if (!VALUE_FLAGS.includes(flag)) return { problem: `unknown command or argument: ${arg}` };
    const value = at > 0 ? arg.slice(at + 1) : args[++index];
    if (value === undefined || value.trim() === "" || value.startsWith("-")) {
      return { problem: `${flag} needs a value` };
    }
    const list = repeated.get(flag);
    if (list !== undefined) list.push(value.trim());
    else if (single.has(flag)) return { problem: `${flag} given twice` };
    else single.set(flag, value.trim());
  }

  const logLevel = single.get("--log-level") ?? "info";
  if (!isLogLevel(logLevel)) return { problem: `--log-level takes one of ${LOG_LEVELS.join(", ")}` };
  const httpOnly = [
    ...single.keys(),
    ...[...repeated].filter(([, v]) => v.length > 0).map(([k]) => k),
  ].filter((flag) => flag !== "--log-level");
  if (!http) {
    return httpOnly.length === 0 ? { logLevel } : { problem: `${httpOnly[0]} needs --http` };
  }

  const port = Number(single.get("--port") ?? DEFAULT_HTTP_PORT);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    return { problem: "--port takes a port number from 0 to 65535 (0 picks a free one)" };
  }
  const allowedHosts = repeated.get("--allowed-host") ?? [];
  const allowedOrigins = repeated.get("--allowed-origin") ?? [];
  const problem =
    allowedHosts.map(allowedHostProblem).find((p) => p !== undefined) ??
    allowedOrigins.map(allowedOriginProblem).find((p) => p !== undefined);
  if (problem !== undefined) return { problem };
  const authTokenFile = single.get("--auth-token-file");
  return {
    logLevel,
    http: {
      host: single.get("--host") ?? DEFAULT_HTTP_HOST,
      port,
      ...(authTokenFile === undefined ? {} : { authTokenFile }),
      allowedHosts,
      allowedOrigins: allowedOrigins.map((origin) => new URL(origin).origin),
    },
  };
}

/** `client-config <client>`'s flags after the client: `--http [--url U]`, U an http(s) URL. */
export function parseClientConfigHttp(args: readonly string[]): { url: string } | { problem: string } {
  const [first, ...rest] = args;
  if (first !== "--http") return { problem: `unknown command or argument: ${args.join(" ")}` };
  if (rest.length === 0) return { url: DEFAULT_HTTP_URL };
  const [flag, value, ...extra] = rest[0]?.startsWith("--url=")
    ? ["--url", rest[0].slice(6), ...rest.slice(1)]
    : rest;
  if (flag !== "--url" || extra.length > 0)
    return { problem: `unknown command or argument: ${rest.join(" ")}` };
  if (value === undefined || !/^https?:\/\/[^\s]+$/.test(value) || !URL.canParse(value)) {
    return { problem: "--url takes the server's MCP URL, e.g. http://127.0.0.1:8000/mcp" };
  }
  return { url: value };
}
