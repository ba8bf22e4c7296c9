import type { CliIo } from "../../cli-support/index.js";
import { addCommand } from "./add.js";
import { type EnvironmentsCommandContext, type EnvironmentsReport, printReport } from "./command-context.js";
import type { EnvironmentsConfigKind } from "./config-kinds.js";
import { diagnoseCommand } from "./diagnose.js";
import { moveCommand, removeCommand } from "./move-remove.js";
import { pairCommand } from "./pair.js";

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
    diagnoseCommand: printed(diagnoseCommand),
    pairCommand: printed(pairCommand),
  };
}
