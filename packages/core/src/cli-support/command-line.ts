import { Command, CommanderError, Option } from "commander";
import { ConnectorError, isConnectorError } from "../errors.js";
import type { TransportOption } from "../pairing/command/requests.js";
import { isLogLevel, LOG_LEVELS } from "./log-level.js";
import { suggestionFor } from "./suggest.js";

/**
 * The one way every t3-connector CLI reads its command line: commander (as `t3-connector-ops`
 * does), made pure. `parseCommandLine` builds a fresh program, lets the CLI declare its commands
 * on it, parses `argv` and answers what it found — it never writes, never exits, so every
 * spelling is tested as a plain function call. Usage problems come back as one sentence in the
 * house style (`unknown command or argument: X (did you mean Y?)`, `--flag needs a value`,
 * `--flag given twice`) with the command they belong to, so the CLI can point at that command's
 * own help (`usageErrorText`); `X --help` and `help X` answer X's own help (ADR 0030).
 *
 * To add a command: `program.command("name").option(...).action((options) => found({...}))` in
 * the CLI's `define` function, a line in its USAGE text, and a case in its `runCli`. To add a
 * flag: `.option("--flag <value>", "what it is", valueOnce("--flag"))` on the command, read it
 * from `options` in the action. A check the parser cannot express throws `usageProblem(...)`.
 */
export type CommandLineOutcome<T> =
  | { kind: "parsed"; value: T; warnings: readonly string[] }
  /** `--help`, `X --help` or `help X`: `command` is the path asked about ([] for the program). */
  | { kind: "help"; command: readonly string[]; text: string }
  | { kind: "version" }
  /** No argument at all: each CLI decides what that means (ADR 0030). */
  | { kind: "none" }
  /** `command` is the deepest command the words named, for the pointer to its own help. */
  | { kind: "problem"; problem: string; command: readonly string[] };

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

/** `-v` and `--version`: the same two spellings on every CLI here (`t3-connector-ops` too). */
export const VERSION_FLAGS: readonly string[] = Object.freeze(["-v", "--version"]);

export interface CommandLineOptions {
  /** The program's name (commander needs one; nothing is printed). */
  name: string;
  /**
   * The version flags, e.g. ["-v", "--version"]. Read only alone, before commander: `--version
   * extra` is a usage problem, and `serve --version` is an unknown option of `serve`.
   */
  versionFlags?: readonly string[];
}

/** What a command's definition may report besides its value: a deprecated spelling it accepted. */
export type Warn = (message: string) => void;

export function parseCommandLine<T>(
  argv: readonly string[],
  define: (program: Command, found: (value: T) => void, warn: Warn) => void,
  options: CommandLineOptions,
): CommandLineOutcome<T> {
  const [first, ...rest] = argv;
  if (first === undefined) return { kind: "none" };
  if (options.versionFlags?.includes(first)) {
    return rest.length === 0
      ? { kind: "version" }
      : { kind: "problem", problem: `unknown command or argument: ${rest.join(" ")}`, command: [] };
  }
  let value: { found: T } | undefined;
  const warnings: string[] = [];
  let helpText = "";
  const program = new Command(options.name)
    .exitOverride()
    .configureOutput({
      writeOut: (text) => {
        helpText += text;
      },
      writeErr: () => {},
      outputError: () => {},
    })
    .showSuggestionAfterError(false)
    // Options belong to the command they follow: `serve --version` is not the version flag.
    .enablePositionalOptions()
    // Operands nobody declared are refused below, naming them (commander's message does not).
    .allowExcessArguments(true)
    .helpCommand(false);
  program.hook("preAction", (_program, action) => {
    const extra = action.args.slice(action.registeredArguments.length);
    if (extra.length > 0) throw unknownWords(extra, action);
  });
  define(
    program,
    (found) => {
      value = { found };
    },
    (message) => warnings.push(message),
  );
  const path = commandPath(program, argv);
  if (first === "help") return helpFor(program, rest);
  try {
    program.parse([...argv], { from: "user" });
  } catch (error) {
    // UsageProblem, or any invalid_input an action raised.
    if (isConnectorError(error, "invalid_input")) {
      return { kind: "problem", problem: error.message, command: path };
    }
    if (!(error instanceof CommanderError)) throw error;
    if (error.code === "commander.helpDisplayed") return { kind: "help", command: path, text: helpText };
    return { kind: "problem", problem: problemOf(error, commandAt(program, path)), command: path };
  }
  if (value === undefined) return { kind: "problem", problem: "a command is required", command: path };
  return { kind: "parsed", value: value.found, warnings };
}

/**
 * For a CLI that runs its own commander program (`t3-connector-ops`, whose actions are async and
 * stateful): commander's refusal of `argv` in the house style, and the command it belongs to, for
 * `usageErrorText`.
 */
export function commanderProblem(
  program: Command,
  argv: readonly string[],
  error: CommanderError,
): { problem: string; command: string[] } {
  const path = commandPath(program, argv);
  const command = commandAt(program, path);
  if (error.code === "commander.excessArguments") {
    // A word after a command with a default subcommand (`environments mvoe`) lands there as an
    // extra argument: it is an unknown subcommand of the command the words named.
    return {
      problem: unknownWords(readArgv(program, argv).operands.slice(0, 1), command).message,
      command: path,
    };
  }
  // Without positional options (ops), a parent's flags are accepted after a command too.
  return { problem: problemOf(error, command, { parentFlags: true }), command: path };
}

/** `help`, `help X`, `help X Y`: that command's own help, or the problem with a suggestion. */
function helpFor<T>(program: Command, words: readonly string[]): CommandLineOutcome<T> {
  let command = program;
  const path: string[] = [];
  for (const word of words) {
    const sub = subcommandNamed(command, word);
    if (sub === undefined) {
      return { kind: "problem", problem: unknownWords([word], command).message, command: path };
    }
    command = sub;
    path.push(sub.name());
  }
  return { kind: "help", command: path, text: path.length === 0 ? "" : command.helpInformation() };
}

/**
 * The words of argv read once: the command path they name (the subcommands before the first
 * operand), and the operands (words that are neither a command of the path, an option nor an
 * option's value). An option's value is skipped whichever command of the path owns the option.
 */
function readArgv(program: Command, argv: readonly string[]): { path: string[]; operands: string[] } {
  const path: string[] = [];
  const operands: string[] = [];
  let command = program;
  let skipValue = false;
  for (const word of argv) {
    if (skipValue) {
      skipValue = false;
      continue;
    }
    if (word.startsWith("-")) {
      let option: Option | undefined;
      for (let at: Command | null = command; at !== null && option === undefined; at = at.parent) {
        option = at.options.find((candidate) => candidate.long === word || candidate.short === word);
      }
      skipValue = option !== undefined && (option.required || option.optional);
      continue;
    }
    const sub = operands.length === 0 ? subcommandNamed(command, word) : undefined;
    if (sub === undefined) {
      operands.push(word);
    } else {
      path.push(sub.name());
      command = sub;
    }
  }
  return { path, operands };
}

const commandPath = (program: Command, argv: readonly string[]): string[] => readArgv(program, argv).path;

function commandAt(program: Command, path: readonly string[]): Command {
  let command = program;
  for (const name of path) command = subcommandNamed(command, name) ?? command;
  return command;
}

function subcommandNamed(command: Command, word: string): Command | undefined {
  return command.commands.find((sub) => sub.name() === word || sub.aliases().includes(word));
}

/** `unknown command or argument: X`, with the nearest subcommand of `command` when one is close. */
function unknownWords(words: readonly string[], command: Command): UsageProblem {
  const known = command.commands.map((sub) => sub.name());
  return usageProblem(
    withSuggestion(`unknown command or argument: ${words.join(" ")}`, words[0] ?? "", known),
  );
}

function withSuggestion(problem: string, typed: string, known: readonly string[]): string {
  const suggestion = suggestionFor(typed, known);
  return suggestion === undefined ? problem : `${problem} (did you mean ${suggestion}?)`;
}

/**
 * Commander's refusal, said the way the CLIs always said it, with the nearest known word. A flag
 * is looked for up the path only where a parent's flags are accepted after a command.
 */
function problemOf(error: CommanderError, command: Command, { parentFlags = false } = {}): string {
  const quoted = /'([^']*)'/.exec(error.message)?.[1] ?? "";
  switch (error.code) {
    case "commander.unknownOption": {
      const flags: string[] = [];
      for (let at: Command | null = command; at !== null; at = parentFlags ? at.parent : null) {
        flags.push(...at.options.filter((option) => !option.hidden).map((option) => option.long ?? ""));
      }
      return withSuggestion(`unknown command or argument: ${quoted}`, quoted.split("=")[0] ?? "", flags);
    }
    case "commander.unknownCommand":
      return unknownWords([quoted], command).message;
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

/**
 * Adds `--url URL` and `--ssh HOST[:PORT]` of `environments add` and `move` (read them with
 * transportFromOptions). `--remote-port P` is the older spelling of `--ssh HOST:P`, still accepted
 * (hidden) with a warning.
 */
export function withTransportOptions(command: Command): Command {
  return command
    .option("--url <url>", "the environment's URL", valueOnce("--url"))
    .option(
      "--ssh <host[:port]>",
      "reach it through an ssh tunnel to HOST (T3 on PORT, default 3773)",
      valueOnce("--ssh"),
    )
    .addOption(new Option("--remote-port <port>").hideHelp().argParser(valueOnce("--remote-port")));
}

/** Exactly one of `--url URL` or `--ssh HOST[:PORT]`, from options already parsed. */
export function transportFromOptions(
  options: { url?: string; ssh?: string; remotePort?: string },
  warn: Warn = () => {},
  commandName = "environments add",
): TransportOption {
  const { url, ssh, remotePort } = options;
  if ((url === undefined) === (ssh === undefined)) {
    throw usageProblem(`${commandName} needs exactly one of --url URL or --ssh HOST[:PORT]`);
  }
  if (url !== undefined) {
    if (remotePort !== undefined) throw usageProblem("--remote-port goes with --ssh, not --url");
    return { url };
  }
  if (remotePort === undefined) return { ssh: ssh as string };
  if (!/^\d{1,5}$/.test(remotePort)) throw usageProblem("--remote-port takes a port number");
  if (/:\d+$/.test(ssh as string)) throw usageProblem("give the port once: --ssh HOST:PORT");
  warn(`--remote-port is deprecated: write --ssh ${ssh}:${remotePort}`);
  return { ssh: `${ssh}:${remotePort}` };
}

/** What a CLI whose commands are `{ kind }` unions gets back besides its own commands. */
export type CommandLineExtra =
  | { kind: "usage-error"; problem: string; command: readonly string[] }
  | { kind: "help"; command: readonly string[]; text: string }
  | { kind: "version" }
  | { kind: "no-command" };

/**
 * The outcome as a CLI's command: the parsed one (with `warnings` when a deprecated spelling was
 * used), or `usage-error`, `help`, `version`, `no-command`. For the CLIs whose commands are
 * `{ kind }` unions (t3-connector, t3-connector-write).
 */
export function commandOf<T extends object>(
  outcome: CommandLineOutcome<T>,
): (T & { warnings?: readonly string[] }) | CommandLineExtra {
  switch (outcome.kind) {
    case "parsed":
      return outcome.warnings.length === 0 ? outcome.value : { ...outcome.value, warnings: outcome.warnings };
    case "problem":
      return { kind: "usage-error", problem: outcome.problem, command: outcome.command };
    case "help":
      return { kind: "help", command: outcome.command, text: outcome.text };
    case "none":
      return { kind: "no-command" };
    case "version":
      return { kind: "version" };
  }
}
