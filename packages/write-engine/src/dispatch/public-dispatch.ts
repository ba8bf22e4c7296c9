/**
 * What the engine's public entry (`../engine/index.ts`, ADR 0027) shows of the dispatcher, listed
 * here once: that entry and this folder's index both re-export this module, so a name moves on or
 * off the entry by one edit here. The dispatcher's other names stay in `index.ts`, for the engine.
 */
export type {
  ConditionalSendRequest,
  ConditionalSendResult,
} from "./conditional-send.js";
export type { Delivery } from "./conditional-send-steps.js";
export type { Dispatcher } from "./dispatcher-contract.js";
export type { DuplicateFront, DuplicateMatch, DuplicateThread } from "./duplicate-front.js";
export { LeaseRule } from "./lease-rule.js";
export { operatorCeilingRefusal } from "./operator-ceiling.js";
export { type OperatorSendOutcome, sendWithoutLease } from "./operator-send.js";
export { type DispatchFailure, type DispatchOutcome, dispatchFailureOf } from "./outcome.js";
export { boundProjectWriteFacts, type ProjectCheckContext, projectRefusal } from "./project-checks.js";
export { NO_LEASE_READ_ONLY, type ResendAuthority } from "./resend-authority.js";
export { scopeVerdict } from "./scope-verdict.js";
export type {
  BatchItem,
  BatchItemState,
  ThreadsBatchRequest,
  ThreadsBatchResult,
} from "./threads-batch.js";
export type {
  DispatchCompleted,
  DispatchRequest,
  LeaseFacts,
  LeaseRefusalCode,
  LeaseRequest,
  LeaseStage,
  LeaseVerdict,
  Observation,
  ReconcileOutcome,
  ResendReport,
  WorkspaceTarget,
  WorkspaceVerifier,
} from "./types.js";
export { wouldPass } from "./would-pass.js";
export type {
  EnvironmentVerdict,
  PreflightReason,
  WouldPassAnswer,
  WouldPassDeps,
  WouldPassRequest,
} from "./would-pass-types.js";
