export { type ConditionalSendDeps, conditionalSend } from "./conditional-send.js";
export { HINT_AFTER_SEQUENCE, HINT_THREADS } from "./derived-record.js";
export { createDispatcher, destinationOf } from "./dispatcher.js";
export type { DispatcherOptions } from "./dispatcher-contract.js";
export { errorFromRefusedRecord, journalErrorOf } from "./journal-errors.js";
export { KeyedLock } from "./keyed-lock.js";
// The names the engine's entry shows too (listed once, there).
export * from "./public-dispatch.js";
export { DEFAULT_RESEND_WINDOW_MS } from "./reconcile.js";
export { runThreadsBatch, type ThreadsBatchDeps } from "./threads-batch.js";
export {
  executionDomainVerifier,
  localRealpath,
  shellQuote,
  sshRealpath,
  sshRealpathArgs,
  WORKSPACE_VERIFY_TIMEOUT_MS,
  type WorkspaceVerifierOptions,
} from "./workspace-verifier.js";
