/**
 * The bridge↔gate relay contract, imported by both sides: the wire's limits and header, each op's
 * request and success result schemas, and the error body with the detail keys that may cross.
 */
export { RELAY_DETAIL_KEYS, type RelayErrorBody, relayDetailsOf, STABLE_RELAY_CODE } from "./errors.js";
export {
  MAX_APPROVAL_WAIT_MS,
  MAX_RELAY_ANSWER_BYTES,
  MAX_RELAY_BODY_BYTES,
  RELAY_HEADER,
  RELAY_PATH,
  RELAY_TIMEOUT_MS,
} from "./limits.js";
export {
  type ConditionalSendOp,
  type DispatchOp,
  type LeasedReadOp,
  MAX_PROJECT_WRITES,
  type PreflightOp,
  parseRelayRequest,
  projectWriteAsk,
  type ReconcileOp,
  type RelayOpName,
  type RelayRequest,
  type RelayRequestInput,
  type RequestApprovalOp,
  type ThreadsBatchOp,
} from "./requests.js";
export {
  type ConditionalSendAnswer,
  type DispatchResult,
  type ListUncertainResult,
  parseRelayResult,
  RELAY_RESULTS,
  type ReconcileResult,
  type RelayParsedResultOf,
  type RelayResultCheck,
  type RelayResultOf,
} from "./results.js";
