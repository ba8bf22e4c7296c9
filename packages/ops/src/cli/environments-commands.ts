/**
 * `environments [list]`, `environments add`, `environments remove`, `environments move`, `diagnose`
 * and `pair`: the ops config's environments. The words are declared once for the three CLIs (core's
 * cli-support), and all but the listing run the one environments command (core's pairing, ADR 0058).
 */
import { defineEnvironmentsCommandLine, type EnvironmentsCliCommand } from "@t3-connector/core/cli-support";
import type { EnvironmentsReport, EnvironmentsRequest } from "@t3-connector/core/pairing";
import type { Command } from "commander";
import { renderEnvironments, renderValue } from "../render.js";
import type { RegisterCommand } from "./command-table.js";
import { EXAMPLES } from "./examples.js";
import type { CliSession } from "./session.js";

export const registerEnvironmentCommands: RegisterCommand = (program, session) => {
  defineEnvironmentsCommandLine(
    program,
    (command: EnvironmentsCliCommand, from: Command) =>
      command.kind === "environments" ? listEnvironments(session, from) : runShared(session, from, command),
    {
      owner: "ops",
      warn: (message) => session.warn(message),
      // As every ops command: the environment may also come first or with --env.
      environmentFallback: (from) => session.globals(from).env,
      examples: EXAMPLES.environments,
    },
  );
};

async function listEnvironments(session: CliSession, from: Command): Promise<void> {
  const opened = await session.openOps(from);
  if (opened.environments.config.environments.length === 0) await session.hintNoEnvironments(opened);
  session.done(await opened.environmentStatus(), renderEnvironments);
}

/**
 * Runs one command of the shared environments command (core's pairing, ADR 0058) over ops.json
 * (`--config`, else the default path) and leaves its report, JSON on a terminal too, and its exit code.
 */
async function runShared(session: CliSession, from: Command, command: EnvironmentsRequest): Promise<void> {
  const { config } = session.globals(from);
  const { runEnvironmentsCommand } = await import("@t3-connector/core/pairing");
  const { OPS_CONFIG } = await import("../config-kind.js");
  const context = {
    kind: OPS_CONFIG,
    io: session.io,
    ...(config === undefined ? {} : { configPath: config }),
  };
  const report: EnvironmentsReport & { text?: string } = await runEnvironmentsCommand(context, command);
  // A report with words for a terminal (`diagnose --deep`) shows them there; --json keeps the value.
  const text = report.text;
  session.done(report.value, text === undefined ? renderValue : () => text, report.exitCode);
}
