export {
  type ConditionalSendDeps,
  type ConditionalSendRequest,
  type ConditionalSendResult,
  conditionalSend,
} from "./conditional-send.js";
export type { Delivery } from "./conditional-send-steps.js";
export { HINT_AFTER_SEQUENCE, HINT_THREADS } from "./derived-record.js";
export { createDispatcher, destinationOf } from "./dispatcher.js";
export { errorFromRefusedRecord, journalErrorOf } from "./journal-errors.js";
export { KeyedLock } from "./keyed-lock.js";
export { type OperatorSendOutcome, sendWithoutLease } from "./operator-send.js";
export { DEFAULT_RESEND_WINDOW_MS } from "./reconcile.js";
export { scopeVerdict } from "./scope-verdict.js";
export type {
  DispatchCompleted,
  Dispatcher,
  DispatcherOptions,
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
} from "./types.js";
export {
  executionDomainVerifier,
  localRealpath,
  shellQuote,
  sshRealpath,
  sshRealpathArgs,
  WORKSPACE_VERIFY_TIMEOUT_MS,
  type WorkspaceVerifierOptions,
} from "./workspace-verifier.js";
