export { HINT_AFTER_SEQUENCE, HINT_THREADS } from "./derived-record.js";
export { createDispatcher, destinationOf } from "./dispatcher.js";
export { errorFromRefusedRecord, journalErrorOf } from "./journal-errors.js";
export { KeyedLock } from "./keyed-lock.js";
export { localRealpath } from "./preflight.js";
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
  UncertainSend,
  WorkspaceVerifier,
} from "./types.js";
