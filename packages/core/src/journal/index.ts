export { canonicalJson, hashInput, sha256Hex } from "../canonical-json.js";
export { DurableJsonFile, writeFileDurably } from "./durable-file.js";
export { type JournalFs, nodeJournalFs } from "./fs.js";
export { Journal } from "./journal.js";
export { isJournalKey, journalKey, type OperationIdentity } from "./key.js";
export { acquireJournalLock, JournalLock, LOCK_FILE } from "./lock.js";
export {
  ACTIVE_FILE,
  DEFAULT_RECENT_RECORDS,
  DEFAULT_RETENTION_MS,
  DEFAULT_SEGMENT_RECORDS,
  JOURNAL_DIRECTORY,
  type JournalOptions,
  openJournal,
} from "./open-journal.js";
export { type JournalOperation, TRANSITIONS } from "./transitions.js";
export * from "./types.js";
