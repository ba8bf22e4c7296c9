import { type LogLevel, parseValueFlags, transportFromFlags } from "@t3-connector/core/cli-support";
import type { TransportOption } from "@t3-connector/core/pairing";
import { parseClientConfigHttp, parseServeArgs } from "../http/http-args.js";
import type { HttpServeOptions } from "../http/http-options.js";
import { CLIENT_NAMES } from "./client-config.js";
import type { AddEnvironmentRequest } from "./environments-edit.js";
import type { ProjectsOption } from "./project-choice.js";

/**
 * The command line of `t3-connector`, parsed into one command. Pure, so every spelling is tested
 * without a process. The Portuguese names of the previous contract (`ambientes`, `diagnostico`,
 * `--ambiente`) stay accepted as aliases: a human typing them means the same command, and unlike
 * a tool parameter an alias cannot be silently dropped.
 */
export type CliCommand =
  | { kind: "serve"; logLevel: LogLevel; http?: HttpServeOptions }
  | { kind: "environments" }
  | { kind: "environments-add"; request: AddEnvironmentRequest }
  | { kind: "environments-remove"; alias: string }
  | { kind: "client-config"; client: string; http?: { url: string } }
  | { kind: "diagnose"; environment?: string }
  | { kind: "pair"; environment: string }
  | { kind: "version" }
  | { kind: "help" }
  | { kind: "usage-error"; problem: string };

const COMMAND_ALIASES: Readonly<Record<string, string>> = {
  ambientes: "environments",
  diagnostico: "diagnose",
};

const ENVIRONMENT_FLAGS = new Set(["--environment", "--ambiente"]);

export function parseCliArgs(argv: readonly string[]): CliCommand {
  // `t3-connector --log-level warn` is `serve` too: serve is the default command.
  const [first = "serve", ...rest] = argv[0]?.startsWith("--log-level") ? ["serve", ...argv] : argv;
  const command = COMMAND_ALIASES[first] ?? first;
  switch (command) {
    case "--version":
    case "-v":
      return rest.length === 0 ? { kind: "version" } : unexpected(rest);
    case "--help":
    case "-h":
    case "help":
      return rest.length === 0 ? { kind: "help" } : unexpected(rest);
    case "serve": {
      const parsed = parseServeArgs(rest);
      return "problem" in parsed
        ? { kind: "usage-error", problem: parsed.problem }
        : { kind: "serve", ...parsed };
    }
    case "environments":
      return parseEnvironments(rest);
    case "client-config": {
      const [client, ...extra] = rest;
      if (client === undefined || client.startsWith("-")) {
        return { kind: "usage-error", problem: `client-config needs a client: ${CLIENT_NAMES.join(", ")}` };
      }
      if (extra.length === 0) return { kind: "client-config", client };
      const http = parseClientConfigHttp(extra);
      return "problem" in http
        ? { kind: "usage-error", problem: http.problem }
        : { kind: "client-config", client, http };
    }
    case "diagnose": {
      const parsed = environmentFlag(rest);
      if ("problem" in parsed) return { kind: "usage-error", problem: parsed.problem };
      return parsed.environment === undefined
        ? { kind: "diagnose" }
        : { kind: "diagnose", environment: parsed.environment };
    }
    case "pair": {
      const parsed = environmentFlag(rest);
      if ("problem" in parsed) return { kind: "usage-error", problem: parsed.problem };
      if (parsed.environment === undefined) {
        return { kind: "usage-error", problem: "pair needs --environment <alias or environmentId>" };
      }
      return { kind: "pair", environment: parsed.environment };
    }
    default:
      return { kind: "usage-error", problem: `unknown command or argument: ${argv.join(" ")}` };
  }
}

/** `environments`, `environments add <alias> …` or `environments remove <alias>`. */
function parseEnvironments(rest: readonly string[]): CliCommand {
  const [sub, alias, ...flags] = rest;
  if (sub === undefined) return { kind: "environments" };
  if (sub !== "add" && sub !== "remove") return unexpected(rest);
  if (alias === undefined || alias.startsWith("-")) {
    return {
      kind: "usage-error",
      problem: `environments ${sub} needs an alias, e.g. environments ${sub} laptop`,
    };
  }
  if (sub === "remove")
    return flags.length === 0 ? { kind: "environments-remove", alias } : unexpected(flags);
  const parsed = parseAddFlags(flags);
  if ("problem" in parsed) return { kind: "usage-error", problem: parsed.problem };
  return { kind: "environments-add", request: { alias, ...parsed } };
}

function parseAddFlags(
  flags: readonly string[],
): { transport: TransportOption; projects?: ProjectsOption } | { problem: string } {
  const parsed = parseValueFlags(flags, ["--url", "--ssh", "--projects"]);
  if ("problem" in parsed) return parsed;
  const transport = transportFromFlags(parsed.values);
  if ("problem" in transport) return transport;
  const projects = parsed.values.get("--projects");
  if (projects === undefined) return { transport };
  if (projects === "all") return { transport, projects: { all: true } };
  const ids = projects.split(",").map((id) => id.trim());
  if (ids.some((id) => id === ""))
    return { problem: "--projects takes all or a comma-separated list of projectIds" };
  return { transport, projects: { ids } };
}

function unexpected(rest: readonly string[]): CliCommand {
  return { kind: "usage-error", problem: `unknown command or argument: ${rest.join(" ")}` };
}

/** `--environment X` or `--environment=X`, at most once, nothing else. */
function environmentFlag(args: readonly string[]): { environment?: string } | { problem: string } {
  let environment: string | undefined;
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] ?? "";
    const [flag = "", inline] = arg.includes("=") ? splitOnce(arg) : [arg, undefined];
    if (!ENVIRONMENT_FLAGS.has(flag)) return { problem: `unknown command or argument: ${arg}` };
    const value = inline ?? args[++index];
    if (value === undefined || value.trim() === "" || value.startsWith("-")) {
      return { problem: `${flag} needs a value (an alias or an environmentId)` };
    }
    if (environment !== undefined) return { problem: `${flag} given twice` };
    environment = value.trim();
  }
  return environment === undefined ? {} : { environment };
}

function splitOnce(arg: string): [string, string] {
  const at = arg.indexOf("=");
  return [arg.slice(0, at), arg.slice(at + 1)];
}
