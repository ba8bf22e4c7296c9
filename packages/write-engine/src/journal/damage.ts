import { ConnectorError } from "@t3-connector/core";
import type { JournalFinding } from "./findings.js";

/** The commands that move on from damage; named in every report so the operator knows the way out. */
export const VERIFY_COMMAND = "t3-connector-write journal verify";
export const RECOVER_COMMAND = "t3-connector-write journal recover --accept-loss";
export const LIFT_UNKNOWN_LOSS_COMMAND = "t3-connector-write journal accept-unknown-loss --checked-t3";

export const WAY_FORWARD =
  "Restore a missing or altered sealed segment from a backup if you have one (segments never change; an older " +
  "active.json, manifest or audit log is itself noticed as rolled back, so a backup cannot replace those); " +
  `otherwise run \`${VERIFY_COMMAND}\` for the full report ` +
  `and \`${RECOVER_COMMAND}\` to rebuild the journal from what survives (recorded in the audit log; ` +
  "a retry of any operation that may have been lost is then refused, never sent again).";

/** Plain findings for JSON output and error details. */
export function findingsJson(findings: readonly JournalFinding[]) {
  return findings.map((finding) => ({
    file: finding.file,
    problem: finding.problem,
    detail: finding.detail,
    lostRecords: finding.lost.records,
    lostKnown: finding.lost.known,
    lostOperationIds: finding.lost.operationIds,
    lostOperationRange:
      finding.lost.firstOperationId === null
        ? null
        : { first: finding.lost.firstOperationId, last: finding.lost.lastOperationId },
    lostKeys: finding.lost.keys.length,
  }));
}

/** `journal_damaged`: names every damaged file, what is lost as far as known, and the way forward. */
export function journalDamaged(stateDir: string, findings: readonly JournalFinding[]): ConnectorError {
  const lines = findings.map((finding) => `  - ${finding.file}: ${finding.detail}`);
  return new ConnectorError(
    "journal_damaged",
    `the journal in ${stateDir} is damaged; the gate will not start on it:\n${lines.join("\n")}\n${WAY_FORWARD}`,
    {
      details: {
        stateDir,
        files: findings.map((finding) => finding.file),
        findings: findingsJson(findings),
        verify: VERIFY_COMMAND,
        recover: RECOVER_COMMAND,
      },
    },
  );
}
