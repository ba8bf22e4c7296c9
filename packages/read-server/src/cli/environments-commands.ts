import type { OperateConfigName } from "@t3-connector/core/cli-support";
import {
  type AddEnvironmentRequest,
  addCommand,
  diagnoseCommand as diagnose,
  moveCommand,
  pairCommand as pair,
  printReport,
  READ_CONFIG,
  removeCommand,
  type TransportOption,
} from "@t3-connector/core/pairing";
import type { CliIo } from "./io.js";

/**
 * `environments add|remove|move`, `diagnose` and `pair` of `t3-connector`: the one environments
 * command of the three CLIs (core's pairing, ADR 0058) over the read config. The CLI imports this module only when one of them runs.
 */
export async function addEnvironmentCommand(io: CliIo, request: AddEnvironmentRequest): Promise<number> {
  return printReport(io, await addCommand({ kind: READ_CONFIG, io }, request));
}

export async function removeEnvironmentCommand(io: CliIo, alias: string): Promise<number> {
  return printReport(io, await removeCommand({ kind: READ_CONFIG, io }, { alias }));
}

export async function moveEnvironmentCommand(
  io: CliIo,
  request: { alias: string; transport: TransportOption },
): Promise<number> {
  return printReport(io, await moveCommand({ kind: READ_CONFIG, io }, request));
}

export async function diagnoseCommand(
  io: CliIo,
  request: { environment?: string; projects?: boolean },
): Promise<number> {
  return printReport(io, await diagnose({ kind: READ_CONFIG, io }, request));
}

export async function pairCommand(
  io: CliIo,
  request: { environment: string; also?: OperateConfigName[] },
): Promise<number> {
  return printReport(io, await pair({ kind: READ_CONFIG, io }, request));
}
