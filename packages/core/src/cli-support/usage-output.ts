/**
 * What every CLI prints for a usage problem, for a command's help and for no arguments, so the
 * three read alike (ADR 0030). A usage problem is two lines on stderr — the problem, then where
 * the help is — never the whole usage: the problem stays on screen.
 */
import type { CommandLineExtra } from "./command-line.js";
import { EXIT_CODES } from "./exit-codes.js";

/** `cli: invalid_input: problem` and a pointer to the help of the command it belongs to. */
export function usageErrorText(cli: string, problem: string, command: readonly string[]): string {
  const target = [cli, ...command].join(" ");
  return `${cli}: invalid_input: ${problem}\nRun '${target} --help' for its usage.\n`;
}

export interface HelpRequest {
  command: readonly string[];
  /** That command's own help (empty for the program). */
  text: string;
}

/** The program's usage for `--help` / `help`, else the command's own, with a way back to the list. */
export function helpText(cli: string, usage: string, request: HelpRequest): string {
  if (request.command.length === 0) return usage;
  return `${request.text}\nEvery command: ${cli} --help\n`;
}

export interface NoCommandOutput {
  stream: "stdout" | "stderr";
  text: string;
  exitCode: number;
}

/**
 * No arguments. A person at a terminal asked what the CLI does: the usage, exit 0. Anything else
 * (an MCP client started it from an old snippet without `serve`, a script) gets the problem on
 * stderr — stdout may be a protocol — naming the command it probably meant, and the usage exit
 * code: a client that shows the server's stderr shows the fix.
 */
export function noCommandOutput(
  cli: string,
  usage: string,
  stdinIsTTY: boolean,
  serverCommand: string,
): NoCommandOutput {
  if (stdinIsTTY) return { stream: "stdout", text: usage, exitCode: EXIT_CODES.ok };
  return {
    stream: "stderr",
    text: usageErrorText(cli, `a command is required; an MCP client runs '${cli} ${serverCommand}'`, []),
    exitCode: EXIT_CODES.usage,
  };
}

const EXTRA_KINDS: ReadonlySet<string> = new Set(["usage-error", "help", "version", "no-command"]);

/** Whether a parsed command is one every CLI answers the same way (see answerCommandLine). */
export function isCommandLineExtra(command: { kind: string }): command is CommandLineExtra {
  return EXTRA_KINDS.has(command.kind);
}

export interface CommandLineAnswerContext {
  cli: string;
  usage: string;
  version: () => string;
  /** What an MCP client runs (`serve`, `bridge`): named when no command was given. */
  serverCommand: string;
}

/**
 * The answer every CLI gives to `--version`, `--help` / `X --help` / `help X`, no arguments and a
 * usage problem, and its exit code: the house style lives here, not in each CLI.
 */
export function answerCommandLine(
  command: CommandLineExtra,
  io: {
    stdout: { write(text: string): unknown };
    stderr: { write(text: string): unknown };
    stdinIsTTY?: boolean;
  },
  context: CommandLineAnswerContext,
): number {
  switch (command.kind) {
    case "version":
      io.stdout.write(`${context.version()}\n`);
      return EXIT_CODES.ok;
    case "help":
      io.stdout.write(helpText(context.cli, context.usage, command));
      return EXIT_CODES.ok;
    case "no-command": {
      const output = noCommandOutput(
        context.cli,
        context.usage,
        io.stdinIsTTY === true,
        context.serverCommand,
      );
      io[output.stream].write(output.text);
      return output.exitCode;
    }
    case "usage-error":
      io.stderr.write(usageErrorText(context.cli, command.problem, command.command));
      return EXIT_CODES.usage;
  }
}
