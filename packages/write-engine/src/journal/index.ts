export { canonicalJson, hashInput, sha256Hex } from "@t3-connector/core";
export {
  acquireJournalLock,
  DurableJsonFile,
  ensurePrivateDirectory,
  errorCode,
  type JournalFs,
  JournalLock,
  LOCK_FILE,
  nodeJournalFs,
  syncDirectory,
  writeFileDurably,
} from "@t3-connector/core/durable";
export {
  findingsJson,
  journalDamaged,
  LIFT_UNKNOWN_LOSS_COMMAND,
  RECOVER_COMMAND,
  VERIFY_COMMAND,
} from "./damage.js";
export type { FindingProblem, JournalFinding, LostRange } from "./inspect.js";
export { Journal } from "./journal.js";
export { isJournalKey, journalKey, type OperationIdentity } from "./key.js";
export {
  type AuditAnchor,
  type LostOperation,
  MANIFEST_FILE,
  MARKER_FILE,
  type UnknownLoss,
} from "./manifest.js";
export {
  ACTIVE_FILE,
  DEFAULT_RECENT_RECORDS,
  DEFAULT_RETENTION_MS,
  DEFAULT_SEGMENT_RECORDS,
  JOURNAL_DIRECTORY,
  type JournalOptions,
  openJournal,
} from "./open-journal.js";
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
export { type JournalOperation, TRANSITIONS } from "./transitions.js";
export * from "./types.js";
export { type JournalWitness, NO_WITNESS, type WitnessReport } from "./witness.js";
