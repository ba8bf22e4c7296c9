/**
 * The write engine's one public face (ADR 0027). The gate, the reconcile and journal commands and
 * `t3-connector-ops` use the engine only through this module; the journal and the dispatcher
 * behind it are the engine's own (test/engine-boundary.test.ts holds that line).
 *
 * - `openWriteEngine`: dispatch, conditional send, reconcile, list the uncertain writes, close.
 * - `verifyJournal` / `recoverJournal` / `liftUnknownLoss`: what an operator runs on a stopped gate.
 * - `sendWithoutLease`: the operator's policy (no lease, no journal), same send rules.
 */

export type { JournalFs } from "@t3-connector/core/durable";
export type {
  ConditionalSendRequest,
  ConditionalSendResult,
} from "../dispatch/conditional-send.js";
export type { Delivery } from "../dispatch/conditional-send-steps.js";
export { type OperatorSendOutcome, sendWithoutLease } from "../dispatch/operator-send.js";
export { type DispatchFailure, type DispatchOutcome, dispatchFailureOf } from "../dispatch/outcome.js";
export { scopeVerdict } from "../dispatch/scope-verdict.js";
export type {
  DispatchCompleted,
  Dispatcher,
  DispatchRequest,
  LeaseCheck,
  LeaseRefusalCode,
  LeaseRequest,
  LeaseStage,
  LeaseVerdict,
  Observation,
  ReconcileOutcome,
  ResendReport,
  UncertainSend,
  WorkspaceTarget,
  WorkspaceVerifier,
} from "../dispatch/types.js";
export {
  findingsJson,
  journalDamaged,
  LIFT_UNKNOWN_LOSS_COMMAND,
  RECOVER_COMMAND,
  VERIFY_COMMAND,
} from "../journal/damage.js";
export type { FindingProblem, JournalFinding, LostRange } from "../journal/inspect.js";
export type { Journal } from "../journal/journal.js";
export type { AuditAnchor, LostOperation, UnknownLoss } from "../journal/manifest.js";
export { DEFAULT_RETENTION_MS, JOURNAL_DIRECTORY } from "../journal/open-journal.js";
export {
  type AuditedOperation,
  type JournalCheckOptions,
  type JournalReport,
  type LiftResult,
  liftUnknownLoss,
  type RecoveryResult,
  recoverJournal,
  verifyJournal,
} from "../journal/recover.js";
export type {
  JournalError,
  JournalReceipt,
  JournalRecord,
  JournalState,
  JournalStats,
} from "../journal/types.js";
export type { JournalWitness, WitnessReport } from "../journal/witness.js";
export {
  NO_NEW_WRITES,
  type OpenWrite,
  openWriteEngine,
  type WriteEngine,
  type WriteEngineOptions,
} from "./write-engine.js";
