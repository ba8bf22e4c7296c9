/**
 * What every command of `t3-connector-ops` shares during one run: the I/O, the operations (opened
 * once, on first use, and closed at the end) and the outcome a command leaves for the CLI to print.
 */
import { type CliInput, type CliIo, EXIT_CODES, readAll } from "@t3-connector/core/cli-support";
import type { Command } from "commander";
import type { RUNTIME_MODE_NAMES } from "../command-constants.js";
// The operations are loaded when a command runs, not to parse a command line (bench/ops-startup).
import type { Ops } from "../ops.js";
import { renderValue } from "../render.js";

export interface OpsCliIo extends CliIo {
  /** Whether stdout is a terminal (tables) or not (JSON). */
  stdoutIsTTY?: boolean;
  /** Whether stdin is a terminal: then nothing is read from it. */
  stdinIsTTY?: boolean;
}

/** The options every command inherits from the root. */
export interface GlobalOptions {
  json?: boolean;
  env?: string;
  config?: string;
  maxRuntimeMode?: (typeof RUNTIME_MODE_NAMES)[number];
}

export interface Outcome {
  value: unknown;
  human: (value: never) => string;
  exitCode: number;
  /**
   * The human form is text meant for pipes too (a diff for `patch` or a pager): printed without
   * a terminal as well, and only `--json` asks for JSON.
   */
  textWhenPiped?: boolean;
}

const MAX_STDIN_BYTES = 1024 * 1024;

export class CliSession {
  /** What the command answered; undefined when none ran (help, version). */
  outcome: Outcome | undefined;
  #ops: Ops | undefined;

  constructor(readonly io: OpsCliIo) {}

  globals(command: Command): GlobalOptions {
    return command.optsWithGlobals() as GlobalOptions;
  }

  /** Loads the ops config (--config, else the default path) and opens the operations over it. */
  async openOps(command: Command): Promise<Ops> {
    const { config: configPath, maxRuntimeMode: ceiling } = this.globals(command);
    const { Ops } = await import("../ops.js");
    const { loadOpsConfig } = await import("../config.js");
    const loaded = await loadOpsConfig({
      ...this.#homeAndEnv(),
      ...(configPath === undefined ? {} : { path: configPath }),
    });
    this.#ops = new Ops({
      config: ceiling === undefined ? loaded : { ...loaded, maxRuntimeMode: ceiling },
      ...(this.io.fetch === undefined ? {} : { fetch: this.io.fetch }),
    });
    return this.#ops;
  }

  /** The config file this command works on: --config, else the default path. */
  async configPathOf(command: Command): Promise<string> {
    const { opsConfigPath } = await import("@t3-connector/core/config");
    return this.globals(command).config ?? opsConfigPath(this.#homeAndEnv());
  }

  /** stdin's text, or undefined when stdin is a terminal or absent. */
  async stdinText(): Promise<string | undefined> {
    if (this.io.stdin === undefined || this.io.stdinIsTTY === true) return undefined;
    return readAll(this.io.stdin as CliInput, MAX_STDIN_BYTES);
  }

  /** An empty config is a state: the listing answers (empty) and stderr says how to add one. */
  async hintNoEnvironments(opened: Ops): Promise<void> {
    const { noEnvironmentsMessage } = await import("@t3-connector/core/config");
    this.io.stderr.write(`${noEnvironmentsMessage("ops", opened.environments.config.path)}\n`);
  }

  /** A deprecated spelling was accepted: say the new one on stderr, as every CLI here does. */
  warn(message: string): void {
    this.io.stderr.write(`t3-connector-ops: warning: ${message}\n`);
  }

  /** Every command ends here: the value to print, how to show it on a terminal, the exit code. */
  done(
    value: unknown,
    human: (value: never) => string = renderValue,
    exitCode: number = EXIT_CODES.ok,
  ): void {
    this.outcome = { value, human, exitCode };
  }

  /** Like `done`, for text a pipe reads as it is (see `Outcome.textWhenPiped`). */
  doneText(value: unknown, human: (value: never) => string): void {
    this.outcome = { value, human, exitCode: EXIT_CODES.ok, textWhenPiped: true };
  }

  /** Whether stdout is a terminal (colour). */
  get stdoutIsTTY(): boolean {
    return this.io.stdoutIsTTY === true;
  }

  async close(): Promise<void> {
    await this.#ops?.close();
  }

  #homeAndEnv(): Pick<CliIo, "env" | "homeDir"> {
    return {
      ...(this.io.env === undefined ? {} : { env: this.io.env }),
      ...(this.io.homeDir === undefined ? {} : { homeDir: this.io.homeDir }),
    };
  }
}
