import type { TransportOption } from "../pairing/add-environment.js";
import { isLogLevel, LOG_LEVELS, type LogLevel } from "./log-level.js";

/**
 * `--name value` or `--name=value` flags, each at most once, only from `names`. Shared by both
 * CLIs so the same spelling works everywhere.
 */
export function parseValueFlags(
  args: readonly string[],
  names: readonly string[],
): { values: Map<string, string> } | { problem: string } {
  const values = new Map<string, string>();
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] ?? "";
    const at = arg.indexOf("=");
    const flag = at > 0 ? arg.slice(0, at) : arg;
    if (!names.includes(flag)) return { problem: `unknown command or argument: ${arg}` };
    const value = at > 0 ? arg.slice(at + 1) : args[++index];
    if (value === undefined || value.trim() === "" || value.startsWith("-")) {
      return { problem: `${flag} needs a value` };
    }
    if (values.has(flag)) return { problem: `${flag} given twice` };
    values.set(flag, value.trim());
  }
  return { values };
}

/** `--log-level error|warn|info|debug` (default info) and nothing else. */
export function parseLogLevelArgs(args: readonly string[]): { logLevel: LogLevel } | { problem: string } {
  const parsed = parseValueFlags(args, ["--log-level"]);
  if ("problem" in parsed) return parsed;
  const value = parsed.values.get("--log-level") ?? "info";
  if (!isLogLevel(value)) return { problem: `--log-level takes one of ${LOG_LEVELS.join(", ")}` };
  return { logLevel: value };
}

/** Exactly one of `--url URL` or `--ssh HOST[:PORT]`, from flags already parsed. */
export function transportFromFlags(values: Map<string, string>): TransportOption | { problem: string } {
  const url = values.get("--url");
  const ssh = values.get("--ssh");
  if ((url === undefined) === (ssh === undefined)) {
    return { problem: "environments add needs exactly one of --url URL or --ssh HOST[:PORT]" };
  }
  return url !== undefined ? { url } : { ssh: ssh as string };
}
