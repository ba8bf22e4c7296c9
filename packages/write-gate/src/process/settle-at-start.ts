/**
 * At start-up the gate tries to settle every `uncertain` write its journal holds by reading T3
 * (the engine's reconcile with no lease: a boot has none, so nothing is sent again, ADR 0042), so
 * that the start-up line counts only writes that are still open afterwards. Each attempt is
 * audited like a reconciliation through the relay. A failure leaves the record as it was.
 */
import type { WriteEngine } from "@t3-connector/write-engine/engine";
import { type AuditLog, reconciledEvent } from "../audit/index.js";

export interface StartSettlement {
  readonly attempted: number;
  readonly completed: number;
  readonly refused: number;
}

export async function settleAtStart(
  engine: Pick<WriteEngine, "listUncertain" | "reconcile">,
  audit: AuditLog,
): Promise<StartSettlement> {
  let completed = 0;
  let refused = 0;
  const records = await engine.listUncertain();
  for (const record of records) {
    try {
      const outcome = await engine.reconcile(record.key);
      if (outcome.settled && outcome.state === "completed") completed += 1;
      if (outcome.settled && outcome.state === "refused") refused += 1;
      await audit.append(reconciledEvent(outcome)).catch(() => undefined);
    } catch {
      // Unreachable environment, journal trouble: the record stays open and is counted as such.
    }
  }
  return { attempted: records.length, completed, refused };
}
