export { canonicalJson, hashInput, sha256Hex } from "@t3-connector/core";
export {
  acquireJournalLock,
  DurableJsonFile,
  ensurePrivateDirectory,
  errorCode,
  JournalLock,
  LOCK_FILE,
  nodeJournalFs,
  syncDirectory,
  writeFileDurably,
} from "@t3-connector/core/durable";
export { ACTIVE_FILE } from "./inspect.js";
// The class itself, for the engine; the engine's entry shows only its type.
export { Journal } from "./journal.js";
export { isJournalKey, journalKey, type OperationIdentity } from "./key.js";
export { MANIFEST_FILE, MARKER_FILE } from "./manifest.js";
export {
  DEFAULT_COMPLETED_WRITE_DELAY_MS,
  DEFAULT_RECENT_RECORDS,
  DEFAULT_SEGMENT_RECORDS,
  type JournalOptions,
  openJournal,
} from "./open-journal.js";
// The names the engine's entry shows too (listed once, there).
export * from "./public-journal.js";
export { type JournalOperation, TRANSITIONS } from "./transitions.js";
export * from "./types.js";
export { NO_WITNESS } from "./witness.js";
