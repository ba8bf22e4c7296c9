/**
 * `t3-connector-write journal verify` and `journal recover --accept-loss`: what an operator does
 * when the gate refused to start with `journal_damaged` (ADR 0006 §10). Both take the journal lock,
 * so neither runs while a gate does.
 *
 * verify: checks every journal file against the manifest and every record against its checksum,
 * prints the same findings the gate refused with, and exits 1 when anything is damaged.
 * recover --accept-loss: rebuilds the journal from what survives (damaged files are kept aside),
 * records what was lost so that a retry of a lost operation is refused (`operation_lost`) rather
 * than sent, and writes a `journal_recovered` line to the audit log.
 */
import { systemClock } from "@t3-connector/core";
import { type CliIo, writeJson } from "@t3-connector/core/cli-support";
import {
  type AuditedOperation,
  DEFAULT_RETENTION_MS,
  findingsJson,
  type JournalReport,
  LIFT_UNKNOWN_LOSS_COMMAND,
  type LiftResult,
  liftUnknownLoss,
  RECOVER_COMMAND,
  type RecoveryResult,
  recoverJournal,
  type UnknownLoss,
  verifyJournal,
} from "@t3-connector/write-engine/engine";
import { type AuditEvent, auditWitness, openAuditLog } from "../audit/index.js";
import { readAuditedOperations } from "./audited-operations.js";
import { loadCliWriteConfig } from "./cli-io.js";

export interface JournalCommandOptions {
  readonly json: boolean;
}

export async function journalVerifyCommand(io: CliIo, options: JournalCommandOptions): Promise<number> {
  const config = await loadCliWriteConfig(io);
  const report = await verifyJournal({ stateDir: config.stateDir, witness: auditWitness(config.stateDir) });
  // With an unknown loss in force, the writes to check in T3 before lifting it.
  const toCheck =
    report.refused.unknownLosses.length === 0
      ? []
      : writesBefore(report.refused.unknownLosses, await readAuditedOperations(config.stateDir));
  if (options.json) writeJson(io, { ...reportJson(report), auditedBeforeLoss: toCheck.map(auditedJson) });
  else io.stdout.write(reportText(report) + checkText(toCheck));
  return report.status === "damaged" ? 1 : 0;
}

/** `journal accept-unknown-loss --checked-t3` (ADR 0006 §11), recorded in the audit log. */
export async function journalLiftCommand(io: CliIo, options: JournalCommandOptions): Promise<number> {
  const config = await loadCliWriteConfig(io);
  const audited = await readAuditedOperations(config.stateDir);
  // The audit log is checked (chain, anchor) under the lock before anything is lifted.
  const result = await liftUnknownLoss({
    stateDir: config.stateDir,
    audited,
    witness: auditWitness(config.stateDir),
  });
  const audit = await openAuditLog({
    stateDir: config.stateDir,
    clock: systemClock,
    journalGeneration: () => result.generation,
  });
  try {
    await audit.append(liftedEvent(result));
  } finally {
    await audit.close();
  }
  if (options.json) writeJson(io, liftJson(result));
  else io.stdout.write(liftText(result));
  return 0;
}

function writesBefore(
  losses: readonly UnknownLoss[],
  audited: readonly AuditedOperation[],
): AuditedOperation[] {
  return audited.filter((seen) =>
    losses.some((loss) => seen.at <= loss.recoveredAt && seen.at > loss.recoveredAt - DEFAULT_RETENTION_MS),
  );
}

function auditedJson(seen: AuditedOperation) {
  return { environmentId: seen.environmentId, operationId: seen.operationId, at: iso(seen.at) };
}

function checkText(toCheck: readonly AuditedOperation[]): string {
  if (toCheck.length === 0) return "";
  const lines = [
    `  writes the audit log names from before the loss (check them in T3, then \`${LIFT_UNKNOWN_LOSS_COMMAND}\`;`,
    "  they stay refused, every other operationId passes again):",
    ...toCheck.slice(-50).map((seen) => `    ${iso(seen.at)}  ${seen.environmentId}  ${seen.operationId}`),
  ];
  if (toCheck.length > 50) lines.splice(2, 0, `    (the last 50 of ${toCheck.length})`);
  return `${lines.join("\n")}\n`;
}

function liftedEvent(result: LiftResult): AuditEvent {
  return {
    event: "journal_unknown_loss_lifted",
    files: result.lifted.flatMap((loss) => loss.files),
    stillRefusedOperationIds: result.stillRefused.map((lost) => lost.operationId),
    stillRefusedUntil: result.stillRefused[0] === undefined ? null : iso(result.stillRefused[0].until),
  };
}

function liftJson(result: LiftResult) {
  return {
    lifted: result.lifted.map((loss) => ({ files: loss.files, recoveredAt: iso(loss.recoveredAt) })),
    stillRefused: result.stillRefused.map((lost) => ({
      environmentId: lost.environmentId,
      operationId: lost.operationId,
      until: iso(lost.until),
    })),
  };
}

function liftText(result: LiftResult): string {
  const lines = [
    `Lifted the refusal of unknown operationIds after the loss of ${result.lifted.flatMap((loss) => loss.files).join(", ")}: new writes pass again.`,
  ];
  if (result.stillRefused.length > 0) {
    lines.push(
      `  ${result.stillRefused.length} operation(s) the audit log names as dispatched before the loss stay refused ` +
        `(operation_lost) until ${iso(result.stillRefused[0]?.until ?? 0)}: ${result.stillRefused.map((lost) => lost.operationId).join(", ")}`,
    );
  }
  lines.push("  recorded in the audit log (journal_unknown_loss_lifted).");
  return `${lines.join("\n")}\n`;
}

export async function journalRecoverCommand(io: CliIo, options: JournalCommandOptions): Promise<number> {
  const config = await loadCliWriteConfig(io);
  const result = await recoverJournal({ stateDir: config.stateDir, witness: auditWitness(config.stateDir) });
  if (result.recovered) {
    const audit = await openAuditLog({
      stateDir: config.stateDir,
      clock: systemClock,
      journalGeneration: () => result.generation,
    });
    try {
      await audit.append(recoveredEvent(result));
    } finally {
      await audit.close();
    }
  }
  if (options.json) writeJson(io, recoveryJson(result));
  else io.stdout.write(recoveryText(result));
  return 0;
}

function recoveredEvent(result: RecoveryResult): AuditEvent {
  const until = result.lostKeys[0]?.until ?? result.unknownLoss?.until ?? null;
  return {
    event: "journal_recovered",
    files: result.report.findings.map((finding) => finding.file),
    lostKeys: result.lostKeys.length,
    lostOperationIds: result.lostKeys.flatMap((lost) =>
      lost.operationId === null ? [] : [lost.operationId],
    ),
    unknownLossUntil: result.unknownLoss === null ? null : iso(result.unknownLoss.until),
    refusedUntil: until === null ? null : iso(until),
    movedAside: result.movedAside,
  };
}

function reportJson(report: JournalReport) {
  return {
    stateDir: report.stateDir,
    status: report.status,
    findings: findingsJson(report.findings),
    intact: report.intact,
    refused: {
      keys: report.refused.keys,
      unknownLosses: report.refused.unknownLosses.map((loss) => ({
        files: loss.files,
        recoveredAt: iso(loss.recoveredAt),
        until: iso(loss.until),
      })),
    },
  };
}

function recoveryJson(result: RecoveryResult) {
  return {
    recovered: result.recovered,
    before: reportJson(result.report),
    lostKeys: result.lostKeys.map((lost) => ({
      key: lost.key,
      operationId: lost.operationId,
      file: lost.file,
      until: iso(lost.until),
    })),
    unknownLoss:
      result.unknownLoss === null
        ? null
        : { files: result.unknownLoss.files, until: iso(result.unknownLoss.until) },
    movedAside: result.movedAside,
  };
}

const STATUS_LINE: Record<JournalReport["status"], string> = {
  fresh: "no journal yet (the gate creates one on its first start)",
  legacy:
    "a journal of the previous format: the next gate start migrates it (no damage can be checked before that)",
  intact: "intact",
  damaged: "DAMAGED",
};

function reportText(report: JournalReport): string {
  const lines = [`journal in ${report.stateDir}: ${STATUS_LINE[report.status]}`];
  lines.push(
    `  intact: ${report.intact.segments} sealed segment(s) with ${report.intact.sealedRecords} record(s), ` +
      `${report.intact.activeRecords} record(s) in the active segment`,
  );
  for (const finding of report.findings)
    lines.push(`  - ${finding.file} [${finding.problem}]: ${finding.detail}`);
  if (report.refused.keys > 0)
    lines.push(`  refused after an earlier recovery: ${report.refused.keys} lost operation(s)`);
  for (const loss of report.refused.unknownLosses) {
    lines.push(
      `  refused until ${iso(loss.until)}: every operationId the journal does not hold (lost ${loss.files.join(", ")})`,
    );
  }
  if (report.status === "damaged") {
    lines.push(
      `Restore the damaged files from a backup, or run \`${RECOVER_COMMAND}\` to continue without them ` +
        "(a retry of an operation that may have been lost is then refused, never sent again).",
    );
  }
  return `${lines.join("\n")}\n`;
}

function recoveryText(result: RecoveryResult): string {
  if (!result.recovered) return `${reportText(result.report)}Nothing to recover.\n`;
  const lines = [
    reportText(result.report).trimEnd(),
    "Recovered: the journal was rebuilt from what survives.",
  ];
  if (result.movedAside.length > 0) lines.push(`  damaged files kept aside: ${result.movedAside.join(", ")}`);
  if (result.lostKeys.length > 0) {
    const named = result.lostKeys.flatMap((lost) => (lost.operationId === null ? [] : [lost.operationId]));
    lines.push(
      `  ${result.lostKeys.length} lost operation(s) are refused (operation_lost) until ${iso(result.lostKeys[0]?.until ?? 0)}` +
        (named.length > 0 ? `: ${named.join(", ")}` : " (named by key in the manifest)"),
    );
  }
  if (result.unknownLoss !== null) {
    lines.push(
      `  records were lost that cannot be named: every operationId the journal does not hold is refused until ${iso(result.unknownLoss.until)}; ` +
        `after checking T3 for the writes \`t3-connector-write journal verify\` lists, \`${LIFT_UNKNOWN_LOSS_COMMAND}\` lets new ones through`,
    );
  }
  lines.push("  recorded in the audit log (journal_recovered).");
  return `${lines.join("\n")}\n`;
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
