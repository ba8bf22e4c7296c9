import type { CliIo, EnvironmentsCliCommand } from "../../cli-support/index.js";
import { ConnectorError } from "../../errors.js";
import { addCommand } from "./add.js";
import { type EnvironmentsCommandContext, type EnvironmentsReport, printReport } from "./command-context.js";
import type { EnvironmentsConfigKind } from "./config-kinds.js";
import { type DeepDiagnoseRequest, deepDiagnoseCommand } from "./deep/deep-diagnose.js";
import { diagnoseCommand } from "./diagnose.js";
import { moveCommand, removeCommand } from "./move-remove.js";
import { pairCommand } from "./pair.js";
import type { DiagnoseRequest } from "./requests.js";

/** An environments command as any CLI parses it (core's cli-support), but the listing, which each CLI owns. */
export type EnvironmentsRequest = Exclude<EnvironmentsCliCommand, { kind: "environments" }>;

/**
 * Runs the command a CLI parsed (`defineEnvironmentsCommandLine`) over the CLI's file: the one
 * place that maps the command line's words to the five commands, for the three CLIs.
 */
export function runEnvironmentsCommand(
  context: EnvironmentsCommandContext,
  command: EnvironmentsRequest,
): Promise<EnvironmentsReport> {
  switch (command.kind) {
    case "environments-add":
      return addCommand(context, command.request);
    case "environments-remove":
      return removeCommand(context, command);
    case "environments-move":
      return moveCommand(context, command);
    case "diagnose":
      if (command.deep === true) return deepDiagnoseCommand(context, deepRequestOf(command));
      return diagnoseCommand(context, command);
    case "pair":
      return pairCommand(context, command);
  }
}

/** `--deep` probes one environment: the one named, which it requires. */
export function deepRequestOf(request: DiagnoseRequest): DeepDiagnoseRequest {
  if (request.environment === undefined) {
    throw new ConnectorError(
      "environment_required",
      "diagnose --deep probes one environment: name it (diagnose --deep ALIAS, or --environment ALIAS)",
    );
  }
  return { environment: request.environment, json: request.json === true };
}

/**
 * The commands as the read and write CLIs' dispatch calls them over their own file: the parsed
 * command runs, its report is printed as JSON on stdout and the exit code answered. ops hands the
 * report to its session instead.
 */
export function cliCommandsFor(kind: EnvironmentsConfigKind) {
  return async (io: CliIo, command: EnvironmentsRequest): Promise<number> =>
    printReport(io, await runEnvironmentsCommand({ kind, io }, command));
}
