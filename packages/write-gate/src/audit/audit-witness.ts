/**
 * The audit log as the journal's witness (ADR 0006 §14–§15), consulted by the journal while it
 * holds its lock: the chain must hold and reach the anchor the marker recorded; the highest
 * journal generation a line recorded must not be ahead of the journal; an audit log with lines, or
 * enrolled passkeys, prove a gate (and so a journal) existed here.
 */
import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import {
  type AuditAnchor,
  type JournalFinding,
  type JournalWitness,
  UNKNOWN_LOST_RANGE,
  type WitnessReport,
} from "@t3-connector/write-engine/engine";
import { CREDENTIALS_FILE } from "../passkeys/credential-store.js";
import { anchorProblem, checkAuditText } from "./audit-chain.js";
import { AUDIT_FILE } from "./audit-log.js";

export async function readAuditText(stateDir: string): Promise<string | null> {
  try {
    return await readFile(join(stateDir, AUDIT_FILE), "utf8");
  } catch (error) {
    if ((error as { code?: unknown }).code === "ENOENT") return null;
    throw error;
  }
}

export function auditWitness(stateDir: string): JournalWitness {
  return {
    async check(anchor: AuditAnchor | null): Promise<WitnessReport> {
      const check = checkAuditText(await readAuditText(stateDir));
      const credentials = await stat(join(stateDir, CREDENTIALS_FILE)).then(
        () => true,
        () => false,
      );
      const evidence: string[] = [];
      if (check.lines > 0) evidence.push(`${AUDIT_FILE} (${check.lines} line(s))`);
      if (credentials) evidence.push(`${CREDENTIALS_FILE} (enrolled passkeys)`);
      const findings: JournalFinding[] = [];
      const consequence = "; it names the writes a recovery keeps refused, so it cannot be trusted any more";
      for (const problem of check.problems) {
        findings.push({
          file: AUDIT_FILE,
          problem: "altered",
          detail: `${AUDIT_FILE}: ${problem}${consequence}`,
          lost: UNKNOWN_LOST_RANGE,
        });
      }
      const behind = check.status === "damaged" ? null : anchorProblem(check, anchor);
      if (behind !== null) {
        findings.push({
          file: AUDIT_FILE,
          problem:
            check.status === "missing"
              ? "missing"
              : check.lines < (anchor?.lines ?? 0)
                ? "truncated"
                : "altered",
          detail: `${AUDIT_FILE}: ${behind}${consequence}`,
          lost: UNKNOWN_LOST_RANGE,
        });
      } else if (check.status === "missing" && credentials) {
        findings.push({
          file: AUDIT_FILE,
          problem: "missing",
          detail: `${AUDIT_FILE} is missing, but ${CREDENTIALS_FILE} shows a gate ran here and enrolled passkeys: it was deleted`,
          lost: UNKNOWN_LOST_RANGE,
        });
      }
      return {
        findings,
        damagedFiles: findings.length > 0 && check.status !== "missing" ? [AUDIT_FILE] : [],
        evidence,
        generation:
          check.journalGeneration === null ? null : { value: check.journalGeneration, file: AUDIT_FILE },
        coversFrom: check.firstAt,
      };
    },
  };
}
