/**
 * What the engine's public entry (`../engine/index.ts`, ADR 0027) shows of the journal, listed here
 * once: that entry and this folder's index both re-export this module. `Journal` is shown as a type
 * only (a caller gets one from `openWriteEngine`, never builds one), so the index adds its class.
 */
export type { JournalFs } from "@t3-connector/core/durable";
export {
  findingsJson,
  journalDamaged,
  LIFT_UNKNOWN_LOSS_COMMAND,
  RECOVER_COMMAND,
  VERIFY_COMMAND,
} from "./damage.js";
export type { FindingProblem, JournalFinding, LostRange } from "./findings.js";
export { JOURNAL_DIRECTORY, UNKNOWN_LOST_RANGE } from "./inspect.js";
export type { Journal } from "./journal.js";
export type { AuditAnchor, LostOperation, UnknownLoss } from "./manifest.js";
export { DEFAULT_RETENTION_MS } from "./open-journal.js";
export {
  type AuditedOperation,
  type JournalCheckOptions,
  type JournalReport,
  type LiftResult,
  liftUnknownLoss,
  type RecoveryResult,
  recoverJournal,
  verifyJournal,
} from "./recover.js";
export type {
  JournalError,
  JournalReceipt,
  JournalRecord,
  JournalState,
  JournalStats,
} from "./types.js";
export type { JournalWitness, WitnessReport } from "./witness.js";
