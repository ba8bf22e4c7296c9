/**
 * `t3-connector-ops`: the CLI over the module API. Output is JSON (one document) when stdout is
 * not a terminal or with --json, tables otherwise; errors go to stderr as `code: message` with
 * the exit codes of exit-codes.ts. `t3-connector-ops <env> <command> ...` is the same as
 * `t3-connector-ops <command> ... --env <env>`.
 *
 * Parsed with commander, like every CLI here. Each command group is a module in cli/, and
 * COMMANDS below lists them in the order help shows them. To add a command: a `RegisterCommand`
 * in its group's module that calls `program.command("name <ref>")` with `.description`, its
 * options (an integer: `integerOption`), an EXAMPLES entry (cli/examples.ts) and an action that
 * ends with `session.done(value, render?)`; usage errors are `ConnectorError("invalid_input", …)`.
 */
import { isConnectorError } from "@t3-connector/core";
import {
  type CliIo,
  commanderProblem,
  EXIT_CODES,
  exitCodeOf,
  usageErrorText,
} from "@t3-connector/core/cli-support";
import { Command, CommanderError, Option } from "commander";
import { CATALOGUE_COMMANDS } from "./cli/catalogue-commands.js";
import type { RegisterCommand } from "./cli/command-table.js";
import { registerEnvironmentCommands } from "./cli/environments-commands.js";
import { EXAMPLES } from "./cli/examples.js";
import { INBOX_COMMANDS } from "./cli/inbox-commands.js";
import { READ_COMMANDS } from "./cli/read-commands.js";
import { CliSession, type OpsCliIo } from "./cli/session.js";
import { registerWait } from "./cli/wait-command.js";
import { WRITE_COMMANDS } from "./cli/write-commands.js";
import { RUNTIME_MODE_NAMES } from "./command-constants.js";
import { opsVersion } from "./package-info.js";

const CLI_NAME = "t3-connector-ops";

/** Every command, in the order `--help` lists them. */
const COMMANDS: readonly RegisterCommand[] = [
  registerEnvironmentCommands,
  ...READ_COMMANDS,
  ...WRITE_COMMANDS,
  ...CATALOGUE_COMMANDS,
  ...INBOX_COMMANDS,
  registerWait,
];

/** Runs one command line; returns the exit code (never calls process.exit). */
export async function runCli(argv: readonly string[], io: OpsCliIo = defaultIo()): Promise<number> {
  const session = new CliSession(io);
  const program = rootProgram(io);
  for (const register of COMMANDS) register(program, session);
  const normalised = normaliseArgv(argv, [...program.commands.map((command) => command.name()), "help"]);
  try {
    await program.parseAsync(normalised, { from: "user" });
  } catch (error) {
    await session.close();
    if (error instanceof CommanderError) {
      if (error.exitCode === 0) return EXIT_CODES.ok;
      // The house style (ADR 0030): the problem with a suggestion, and where that command's help is.
      const { problem, command } = commanderProblem(program, normalised, error);
      io.stderr.write(usageErrorText(CLI_NAME, problem, command));
      return EXIT_CODES.usage;
    }
    writeError(io, error);
    return exitCodeOf(error);
  }
  await session.close();
  const { outcome } = session;
  if (outcome === undefined) return EXIT_CODES.ok;
  const asked = program.opts<{ json?: boolean }>().json === true;
  const json = asked || (io.stdoutIsTTY !== true && outcome.textWhenPiped !== true);
  io.stdout.write(
    json ? `${JSON.stringify(outcome.value, null, 2)}\n` : outcome.human(outcome.value as never),
  );
  return outcome.exitCode;
}

/** The program with its global options, wired to `io` and throwing instead of exiting. */
function rootProgram(io: OpsCliIo): Command {
  return new Command(CLI_NAME)
    .description("The operator's CLI over every T3 environment (own orchestration:operate token, no lease).")
    .version(opsVersion(), "-v, --version", "print the version")
    .option("--json", "print JSON even on a terminal")
    .option("--env <name>", "the environment (alias, extra alias or environmentId)")
    .addOption(
      new Option(
        "--max-runtime-mode <mode>",
        "refuse writes that would run an agent above this runtime mode (default: the config's maxRuntimeMode, else full-access)",
      ).choices([...RUNTIME_MODE_NAMES]),
    )
    .option(
      "--config <path>",
      "the ops config file (default $T3_CONNECTOR_OPS_CONFIG or ~/.config/t3-connector/ops.json)",
    )
    .addHelpText("after", EXAMPLES.root)
    .showHelpAfterError(false)
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
      // Usage errors are written once parsing stopped, in the house style (runCli).
      outputError: () => {},
    });
}

/** `<env> <command> ...` → `<command> ... --env <env>`. */
function normaliseArgv(argv: readonly string[], commands: readonly string[]): string[] {
  const [first, ...rest] = argv;
  if (first === undefined || first.startsWith("-") || commands.includes(first)) return [...argv];
  if (rest.length === 0) return [...argv];
  return [...rest, "--env", first];
}

/** `t3-connector-ops: code: message`, as every CLI here prints a failure. */
function writeError(io: CliIo, error: unknown): void {
  if (isConnectorError(error)) {
    io.stderr.write(`${CLI_NAME}: ${error.code}: ${error.message}\n`);
    const candidates = error.details?.candidates;
    if (Array.isArray(candidates)) {
      for (const candidate of candidates) io.stderr.write(`  ${JSON.stringify(candidate)}\n`);
    }
    return;
  }
  io.stderr.write(
    `${CLI_NAME}: internal: ${error instanceof Error ? error.message : "unexpected failure"}\n`,
  );
}

function defaultIo(): OpsCliIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    stdoutIsTTY: process.stdout.isTTY === true,
    stdinIsTTY: process.stdin.isTTY === true,
  };
}
