export type { SimTimer } from "./clock.js";
export { SimClock } from "./clock.js";
export type {
  EnvironmentDescriptor,
  EnvironmentModel,
  HttpOutcome,
  RpcOutcome,
  StreamHandle,
  StreamOpenResult,
  StreamSink,
} from "./model/contract.js";
export type { ReceivedCommand, SimEnvironmentModel } from "./model/index.js";
export type { SimEnvironment, Simulator } from "./simulator.js";
export { startSimulator } from "./simulator.js";
export type { SimulatorEnvironmentOptions, SimulatorOptions } from "./simulator-core.js";
export type { FaultController, FaultSet, HeldKind } from "./transport/index.js";
export { ADMINISTRATIVE_SCOPES, STANDARD_CLIENT_SCOPES } from "./transport/index.js";
