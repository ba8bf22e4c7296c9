export type CliCommand =
  | { kind: "help" }
  | { kind: "version" }
  | { kind: "gate" }
  | { kind: "bridge" }
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
      return rest.length === 0 ? { kind: "gate" } : { kind: "usage-error", problem: `unexpected ${rest[0]}` };
    case "bridge":
      return rest.length === 0
        ? { kind: "bridge" }
        : { kind: "usage-error", problem: `unexpected ${rest[0]}` };
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
