import type { CliIo } from "../../cli-support/index.js";
import { ConnectorError } from "../../errors.js";
import { addCommand } from "./add.js";
import { type EnvironmentsCommandContext, type EnvironmentsReport, printReport } from "./command-context.js";
import type { EnvironmentsConfigKind } from "./config-kinds.js";
import { type DeepDiagnoseRequest, deepDiagnoseCommand } from "./deep/deep-diagnose.js";
import { type DiagnoseRequest, diagnoseCommand } from "./diagnose.js";
import { moveCommand, removeCommand } from "./move-remove.js";
import { pairCommand } from "./pair.js";

/** `diagnose`, or with `deep` the deep probe of one environment (ADR 0069). */
export type DiagnoseCliRequest = DiagnoseRequest & { deep?: boolean | undefined; json?: boolean | undefined };

function diagnoseOrDeep(
  context: EnvironmentsCommandContext,
  request: DiagnoseCliRequest,
): Promise<EnvironmentsReport> {
  if (request.deep !== true) return diagnoseCommand(context, request);
  return deepDiagnoseCommand(context, deepRequestOf(request));
}

/** `--deep` probes one environment: the one named, which it requires. */
export function deepRequestOf(request: DiagnoseCliRequest): DeepDiagnoseRequest {
  if (request.environment === undefined) {
    throw new ConnectorError(
      "environment_required",
      "diagnose --deep probes one environment: name it (diagnose --deep ALIAS, or --environment ALIAS)",
    );
  }
  return { environment: request.environment, json: request.json === true };
}

type Command<R> = (context: EnvironmentsCommandContext, request: R) => Promise<EnvironmentsReport>;

/**
 * The five commands as a CLI's dispatch calls them over its own file: each takes the parsed
 * request, prints the report as JSON on stdout and answers the exit code. The read and write
 * CLIs use these; ops hands the report to its session instead.
 */
export function cliCommandsFor(kind: EnvironmentsConfigKind) {
  const printed =
    <R>(command: Command<R>) =>
    async (io: CliIo, request: R): Promise<number> =>
      printReport(io, await command({ kind, io }, request));
  return {
    addEnvironmentCommand: printed(addCommand),
    removeEnvironmentCommand: printed(removeCommand),
    moveEnvironmentCommand: printed(moveCommand),
    diagnoseCommand: printed(diagnoseOrDeep),
    pairCommand: printed(pairCommand),
  };
}
