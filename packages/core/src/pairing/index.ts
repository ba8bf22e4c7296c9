export {
  PAIR_TIMEOUT_MS,
  type PairEnvironmentOptions,
  type PairingOutcome,
  type PairingWording,
  pairEnvironment,
  readPairingCode,
} from "./pair-environment.js";
