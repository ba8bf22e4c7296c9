/** The simulated T3 environment's domain model (consumed by ../transport and tests). */

export type { ReceivedCommand } from "./commands/dispatcher.js";
export { COMMAND_TYPES, SERVER_ONLY_COMMAND_TYPES } from "./commands/schemas.js";
export type {
  EnvironmentDescriptor,
  EnvironmentModel,
  HttpOutcome,
  RpcOutcome,
  StreamHandle,
  StreamOpenResult,
  StreamSink,
} from "./contract.js";
export { createEnvironmentModel } from "./create-model.js";
export { LIFECYCLE_STREAM_INTERRUPT_DEFECT, THREAD_STREAM_INTERRUPT_DEFECT } from "./errors.js";
export {
  type EnvironmentModelOptions,
  SimEnvironmentModel,
  type ThreadInspection,
} from "./model.js";
export type { RunScript, UserInputQuestion } from "./scripts.js";
export { seedBulk } from "./seed-demo.js";
export type { ThreadSpec, ThreadState } from "./seed-thread.js";
export type { AgentWork, AgentWorkKind } from "./store.js";
export { THREAD_RESUME_MAX_REPLAY_EVENTS } from "./streams.js";
