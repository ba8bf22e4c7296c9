/**
 * The command line of `t3-connector`, parsed into one command. Pure, so every spelling is tested
 * without a process. The Portuguese names of the previous contract (`ambientes`, `diagnostico`,
 * `--ambiente`) stay accepted as aliases: a human typing them means the same command, and unlike
 * a tool parameter an alias cannot be silently dropped.
 */
export type CliCommand =
  | { kind: "serve" }
  | { kind: "environments" }
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
  const [first = "serve", ...rest] = argv;
  const command = COMMAND_ALIASES[first] ?? first;
  switch (command) {
    case "--version":
    case "-v":
      return rest.length === 0 ? { kind: "version" } : unexpected(rest);
    case "--help":
    case "-h":
    case "help":
      return rest.length === 0 ? { kind: "help" } : unexpected(rest);
    case "serve":
    case "environments":
      return rest.length === 0 ? { kind: command } : unexpected(rest);
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
