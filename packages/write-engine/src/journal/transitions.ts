import { ConnectorError } from "@t3-connector/core";
import type { JournalState } from "./types.js";

/**
 * The only legal moves. `completed` is reachable only from `uncertain`, so no record can claim a
 * receipt without its derived ids having been durable before the send. `completed` and `refused`
 * are final: a settled record never changes again (which is what lets it be sealed).
 */
export const TRANSITIONS = {
  /** Before the one send: record the ids that will go to T3. */
  markUncertain: { from: ["preparing"], to: ["uncertain"] },
  /** An answer that decides nothing (lost, conflict, a defect not yet read): stays uncertain, with the code. */
  recordError: { from: ["uncertain"], to: ["uncertain"] },
  /** T3 acknowledged the send. */
  complete: { from: ["uncertain"], to: ["completed"] },
  /** Provably not applied: refused before the send, or the gate knows the send did not happen. */
  refuse: { from: ["preparing", "uncertain"], to: ["refused"] },
  /** Reconciliation read T3 and decided. */
  settle: { from: ["uncertain"], to: ["completed", "refused"] },
} as const satisfies Record<string, { from: readonly JournalState[]; to: readonly JournalState[] }>;

export type JournalOperation = keyof typeof TRANSITIONS;

export function assertTransition(operation: JournalOperation, from: JournalState, to: JournalState): void {
  const rule: { from: readonly JournalState[]; to: readonly JournalState[] } = TRANSITIONS[operation];
  if (rule.from.includes(from) && rule.to.includes(to)) return;
  throw new ConnectorError(
    "journal_transition_invalid",
    `${operation} cannot move a ${from} record to ${to} (allowed from: ${rule.from.join(", ")})`,
    { details: { operation, from, to } },
  );
}
