import {
  type LogLevel,
  parseLogLevelArgs,
  parseValueFlags,
  transportFromFlags,
} from "@t3-connector/core/cli-support";
import type { TransportOption } from "@t3-connector/core/pairing";

export type CliCommand =
  | { kind: "help" }
  | { kind: "version" }
  | { kind: "gate"; logLevel: LogLevel }
  | { kind: "bridge"; logLevel: LogLevel }
  | { kind: "environments-add"; alias: string; transport: TransportOption }
  | { kind: "environments-remove"; alias: string }
  | { kind: "client-config"; client: string }
  | { kind: "diagnose"; projects: boolean }
  | { kind: "pair"; environment: string }
  | {
      kind: "reconcile";
      environment?: string;
      operationId?: string;
      allUncertain: boolean;
      json: boolean;
    }
  | { kind: "usage-error"; problem: string };

export function parseCliArgs(argv: readonly string[]): CliCommand {
  const [first, ...rest] = argv;
  if (first === undefined) return { kind: "usage-error", problem: "a command is required" };
  if (first === "--help" || first === "-h" || first === "help") {
    return rest.length === 0 ? { kind: "help" } : { kind: "usage-error", problem: `unexpected ${rest[0]}` };
  }
  if (first === "--version") {
    return rest.length === 0
      ? { kind: "version" }
      : { kind: "usage-error", problem: `unexpected ${rest[0]}` };
  }
  switch (first) {
    case "gate":
    case "bridge": {
      const parsed = parseLogLevelArgs(rest);
      return "problem" in parsed
        ? { kind: "usage-error", problem: parsed.problem }
        : { kind: first, ...parsed };
    }
    case "environments":
      return parseEnvironments(rest);
    case "client-config": {
      const [client, ...extra] = rest;
      if (client === undefined || client.startsWith("-")) {
        return { kind: "usage-error", problem: "client-config needs a client (see --help)" };
      }
      return extra.length === 0
        ? { kind: "client-config", client }
        : { kind: "usage-error", problem: `unexpected ${extra[0]}` };
    }
    case "diagnose": {
      let projects = false;
      for (const arg of rest) {
        if (arg === "--projects") projects = true;
        else return { kind: "usage-error", problem: `unexpected ${arg}` };
      }
      return { kind: "diagnose", projects };
    }
    case "pair":
      return parsePair(rest);
    case "reconcile":
      return parseReconcile(rest);
    default:
      return { kind: "usage-error", problem: `unknown command ${first}` };
  }
}

function parseEnvironments(rest: readonly string[]): CliCommand {
  const [sub, alias, ...flags] = rest;
  if (sub !== "add" && sub !== "remove") {
    return {
      kind: "usage-error",
      problem: "environments add <alias> (--url URL | --ssh HOST[:PORT]) or environments remove <alias>",
    };
  }
  if (alias === undefined || alias.startsWith("-")) {
    return { kind: "usage-error", problem: `environments ${sub} needs an alias` };
  }
  if (sub === "remove") {
    return flags.length === 0
      ? { kind: "environments-remove", alias }
      : { kind: "usage-error", problem: `unexpected ${flags[0]}` };
  }
  const parsed = parseValueFlags(flags, ["--url", "--ssh"]);
  if ("problem" in parsed) return { kind: "usage-error", problem: parsed.problem };
  const transport = transportFromFlags(parsed.values);
  if ("problem" in transport) return { kind: "usage-error", problem: transport.problem };
  return { kind: "environments-add", alias, transport };
}

function parsePair(rest: readonly string[]): CliCommand {
  let environment: string | undefined;
  for (let index = 0; index < rest.length; index += 1) {
    const arg = rest[index] as string;
    let value: string | undefined;
    if (arg === "--environment") {
      value = rest[index + 1];
      index += 1;
    } else if (arg.startsWith("--environment=")) {
      value = arg.slice("--environment=".length);
    } else {
      return { kind: "usage-error", problem: `unexpected ${arg}` };
    }
    if (value === undefined || value === "" || value.startsWith("-")) {
      return { kind: "usage-error", problem: "--environment needs a value" };
    }
    if (environment !== undefined) return { kind: "usage-error", problem: "--environment given twice" };
    environment = value;
  }
  if (environment === undefined) return { kind: "usage-error", problem: "pair needs --environment X" };
  return { kind: "pair", environment };
}

/** `--name value` or `--name=value`; answers the value and how many arguments it used. */
function flagValue(
  rest: readonly string[],
  index: number,
  name: string,
): [string | undefined, number] | null {
  const arg = rest[index] as string;
  if (arg === name) return [rest[index + 1], 2];
  if (arg.startsWith(`${name}=`)) return [arg.slice(name.length + 1), 1];
  return null;
}

function parseReconcile(rest: readonly string[]): CliCommand {
  const values: { environment?: string; operationId?: string } = {};
  let allUncertain = false;
  let json = false;
  for (let index = 0; index < rest.length; ) {
    const arg = rest[index] as string;
    if (arg === "--all-uncertain" || arg === "--json") {
      if (arg === "--json") json = true;
      else allUncertain = true;
      index += 1;
      continue;
    }
    const [flag, field] = arg.startsWith("--operation")
      ? (["--operation", "operationId"] as const)
      : (["--environment", "environment"] as const);
    const found = flagValue(rest, index, flag);
    if (found === null) return { kind: "usage-error", problem: `unexpected ${arg}` };
    const [value, used] = found;
    if (value === undefined || value === "" || value.startsWith("-")) {
      return { kind: "usage-error", problem: `${flag} needs a value` };
    }
    if (values[field] !== undefined) return { kind: "usage-error", problem: `${flag} given twice` };
    values[field] = value;
    index += used;
  }
  if (values.operationId === undefined && !allUncertain) {
    return { kind: "usage-error", problem: "reconcile needs --operation ID or --all-uncertain" };
  }
  if (values.operationId !== undefined && allUncertain) {
    return { kind: "usage-error", problem: "--operation and --all-uncertain exclude each other" };
  }
  return { kind: "reconcile", ...values, allUncertain, json };
}
