export {
  CAPABILITY_FILE,
  CAPABILITY_HEADER,
  capabilityMatches,
  generateCapability,
  removeCapabilityFile,
  writeCapabilityFile,
} from "./capability.js";
export { type RelayErrorBody, relayErrorOf } from "./errors.js";
export { leasedRead } from "./leased-read.js";
export { MAX_RELAY_BODY_BYTES, parseRelayRequest, type RelayRequest } from "./ops.js";
export {
  createRelayApp,
  handleRelay,
  RELAY_PATH,
  type RelayAnswer,
  type RelayDeps,
  relayHandler,
} from "./relay-app.js";
