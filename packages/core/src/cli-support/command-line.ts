import { Command, CommanderError, Option } from "commander";
import { ConnectorError, isConnectorError } from "../errors.js";
import type { TransportOption } from "../pairing/add-environment.js";
import { isLogLevel, LOG_LEVELS } from "./log-level.js";

/**
 * The one way every t3-connector CLI reads its command line: commander (as `t3-connector-ops`
 * does), made pure. `parseCommandLine` builds a fresh program, lets the CLI declare its commands
 * on it, parses `argv` and answers what it found — it never writes, never exits, so every
 * spelling is tested as a plain function call. Usage problems come back as one sentence in the
 * house style (`unknown command or argument: X`, `--flag needs a value`, `--flag given twice`);
 * each CLI prints its own usage text with them.
 *
 * To add a command: `program.command("name").option(...).action((options) => found({...}))` in
 * the CLI's `define` function, a line in its USAGE text, and a case in its `runCli`. To add a
 * flag: `.option("--flag <value>", "what it is", valueOnce("--flag"))` on the command, read it
 * from `options` in the action. A check the parser cannot express throws `usageProblem(...)`.
 */
export type CommandLineOutcome<T> =
  | { kind: "parsed"; value: T }
  | { kind: "help" }
  | { kind: "version" }
  | { kind: "problem"; problem: string };

/**
 * Thrown from an action or an option parser: the command line is wrong, and this says how. It is
 * the one error type (`ConnectorError`, code `invalid_input`), named for what it means here.
 */
export class UsageProblem extends ConnectorError {
  constructor(message: string) {
    super("invalid_input", message);
  }
}

/** `throw usageProblem("…")`: the same as `throw new UsageProblem("…")`. */
export function usageProblem(message: string): UsageProblem {
  return new UsageProblem(message);
}

export interface CommandLineOptions {
  /** The program's name (commander needs one; nothing is printed). */
  name: string;
  /**
   * The version flags, e.g. ["-v", "--version"]. Read only alone, before commander: `--version
   * extra` is a usage problem, and `serve --version` is an unknown option of `serve`.
   */
  versionFlags?: readonly string[];
}

export function parseCommandLine<T>(
  argv: readonly string[],
  define: (program: Command, found: (value: T) => void) => void,
  options: CommandLineOptions,
): CommandLineOutcome<T> {
  const [first, ...rest] = argv;
  if (first !== undefined && options.versionFlags?.includes(first)) {
    return rest.length === 0
      ? { kind: "version" }
      : { kind: "problem", problem: `unknown command or argument: ${rest.join(" ")}` };
  }
  let value: { found: T } | undefined;
  const program = new Command(options.name)
    .exitOverride()
    .configureOutput({ writeOut: () => {}, writeErr: () => {}, outputError: () => {} })
    .showSuggestionAfterError(false)
    // Options belong to the command they follow: `serve --version` is not the version flag.
    .enablePositionalOptions()
    // Operands nobody declared are refused below, naming them (commander's message does not).
    .allowExcessArguments(true)
    .helpCommand(false);
  program.hook("preAction", (_program, action) => {
    const extra = action.args.slice(action.registeredArguments.length);
    if (extra.length > 0) throw usageProblem(`unknown command or argument: ${extra.join(" ")}`);
  });
  define(program, (found) => {
    value = { found };
  });
  try {
    program.parse([...argv], { from: "user" });
  } catch (error) {
    // UsageProblem, or any invalid_input an action raised.
    if (isConnectorError(error, "invalid_input")) return { kind: "problem", problem: error.message };
    if (!(error instanceof CommanderError)) throw error;
    if (error.code === "commander.helpDisplayed") return { kind: "help" };
    return { kind: "problem", problem: problemOf(error) };
  }
  if (value === undefined) return { kind: "problem", problem: "a command is required" };
  return { kind: "parsed", value: value.found };
}

/** Commander's refusal, said the way the CLIs always said it. */
function problemOf(error: CommanderError): string {
  const quoted = /'([^']*)'/.exec(error.message)?.[1] ?? "";
  switch (error.code) {
    case "commander.unknownOption":
    case "commander.unknownCommand":
      return `unknown command or argument: ${quoted}`;
    case "commander.optionMissingArgument":
      return `${quoted.split(" ")[0]} needs a value`;
    case "commander.help":
      // A program with subcommands and none given.
      return "a command is required";
    default:
      return error.message.replace(/^error: /, "");
  }
}

/**
 * The parser of a `--flag value` (or `--flag=value`) given at most once: the value is trimmed, and
 * an empty one or the next flag taken as its value is refused.
 */
export function valueOnce(flag: string) {
  return (value: string, previous: string | undefined): string => {
    const trimmed = requireValue(flag, value);
    if (previous !== undefined) throw usageProblem(`${flag} given twice`);
    return trimmed;
  };
}

/** A flag's value, trimmed; refused when empty or when it is the next flag. */
export function requireValue(flag: string, value: string): string {
  if (value.trim() === "" || value.startsWith("-")) throw usageProblem(`${flag} needs a value`);
  return value.trim();
}

/** `--log-level error|warn|info|debug`, at most once; absent means DEFAULT_LOG_LEVEL. */
export function logLevelOption(): Option {
  return new Option("--log-level <level>", `what goes to stderr: ${LOG_LEVELS.join(", ")}`).argParser(
    (value: string, previous: string | undefined) => {
      const level = valueOnce("--log-level")(value, previous);
      if (!isLogLevel(level)) throw usageProblem(`--log-level takes one of ${LOG_LEVELS.join(", ")}`);
      return level;
    },
  );
}

/** Adds `--url URL` and `--ssh HOST[:PORT]` of `environments add` (read them with transportFromOptions). */
export function withTransportOptions(command: Command): Command {
  return command
    .option("--url <url>", "the environment's URL", valueOnce("--url"))
    .option("--ssh <host>", "reach it through an ssh tunnel to HOST[:PORT]", valueOnce("--ssh"));
}

/** Exactly one of `--url URL` or `--ssh HOST[:PORT]`, from options already parsed. */
export function transportFromOptions(options: { url?: string; ssh?: string }): TransportOption {
  const { url, ssh } = options;
  if ((url === undefined) === (ssh === undefined)) {
    throw usageProblem("environments add needs exactly one of --url URL or --ssh HOST[:PORT]");
  }
  return url !== undefined ? { url } : { ssh: ssh as string };
}

/**
 * The outcome as a CLI's command: the parsed one, or `usage-error` with the problem, or `help` /
 * `version`. For the CLIs whose commands are `{ kind }` unions (t3-connector, t3-connector-write).
 */
export function commandOf<T>(
  outcome: CommandLineOutcome<T>,
): T | { kind: "usage-error"; problem: string } | { kind: "help" } | { kind: "version" } {
  switch (outcome.kind) {
    case "parsed":
      return outcome.value;
    case "problem":
      return { kind: "usage-error", problem: outcome.problem };
    default:
      return { kind: outcome.kind };
  }
}
