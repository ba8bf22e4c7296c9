export type { SimTimer } from "./clock.js";
export { SimClock } from "./clock.js";
export {
  SUPERSET_EXTRA_SCOPE,
  UNKNOWN_VARIANTS_0046,
  UNKNOWNS_0046_AS_BEFORE,
  UNKNOWNS_0046_OTHERWISE,
  type Unknowns0046,
} from "./model/age-0046.js";
export type { CompatProfile } from "./model/compat-0031.js";
export {
  ABSENT_COMMAND_TYPES_0031,
  ACCEPTED_COMMAND_TYPES_0031,
  COMPAT_PROFILES,
  UNKNOWN_COMMAND_DEFECT_0031,
} from "./model/compat-0031.js";
export type {
  EnvironmentDescriptor,
  EnvironmentModel,
  HttpOutcome,
  RpcOutcome,
  StreamHandle,
  StreamOpenResult,
  StreamSink,
} from "./model/contract.js";
export type { AgentWork, AgentWorkKind, ReceivedCommand, SimEnvironmentModel } from "./model/index.js";
export { COMMAND_TYPES, SERVER_ONLY_COMMAND_TYPES } from "./model/index.js";
export type { ProviderState } from "./model/provider-states.js";
export { profileFromReport, type ReportProfile } from "./profile-from-report.js";
export type { SimEnvironment, Simulator } from "./simulator.js";
export { startSimulator } from "./simulator.js";
export type { EnvironmentProfile, SimulatorEnvironmentOptions, SimulatorOptions } from "./simulator-core.js";
export type { FaultController, FaultSet, HeldKind } from "./transport/index.js";
export { ADMINISTRATIVE_SCOPES, STANDARD_CLIENT_SCOPES } from "./transport/index.js";
