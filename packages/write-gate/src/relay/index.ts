export {
  CAPABILITY_FILE,
  capabilityMatches,
  generateCapability,
  removeCapabilityFile,
  writeCapabilityFile,
} from "./capability.js";
export { relayErrorOf } from "./errors.js";
export { leasedRead } from "./leased-read.js";
export { MAX_REMEMBERED_OPERATIONS, OperationOwners } from "./operation-owners.js";
export { type GatePreflight, PreflightSlots } from "./preflight-op.js";
export {
  handleRelay,
  type RelayAnswer,
  type RelayDeps,
  relayHandler,
  type VerifiedRelay,
  verifiedRelay,
} from "./relay-app.js";
