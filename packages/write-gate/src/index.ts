/**
 * The write gate's public API: start the gate process, or build its parts (the HTTP app, the
 * lease keeper, the approval desk, the relay) to embed or test them; `runCli` is the command line.
 */

export type { CliIo } from "@t3-connector/core/cli-support";
export {
  createGateApp,
  type GateApp,
  type GateAppDeps,
  type LeaseStatus,
  leaseStatus,
  PAGE_BODY_LIMIT,
} from "./app/index.js";
export {
  GateApprovalDesk,
  type GateApprovalDeskOptions,
  MAX_PENDING_REQUESTS,
  REQUEST_TTL_MS,
  type RequestView,
  registryInventory,
  scopeFingerprint,
} from "./approval/index.js";
export { AUDIT_FILE, type AuditEvent, type AuditLine, type AuditLog, openAuditLog } from "./audit/index.js";
export { CLI_NAME, runCli, USAGE } from "./cli.js";
export type { ApprovalDesk, LeaseKeeper, RequestDecision } from "./contract.js";
export { type GateEvent, GateEvents, type WriteRow } from "./events/gate-events.js";
export { GateLeaseKeeper, type GrantedLease, LEASE_TTL_MS } from "./lease/lease-keeper.js";
export { RP_ID } from "./passkeys/index.js";
export {
  channelIdentity,
  type GateParts,
  type HumanSide,
  type RelayHandler,
  type RunningGate,
  type StartGateOptions,
  startGate,
} from "./process/index.js";
export {
  CAPABILITY_FILE,
  capabilityMatches,
  handleRelay,
  type RelayAnswer,
  type RelayDeps,
  relayErrorOf,
  relayHandler,
} from "./relay/index.js";
