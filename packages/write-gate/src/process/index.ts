export {
  CRASH_ENV,
  CRASH_POINTS,
  type CrashPoint,
  crashHookFromEnv,
  crashingJournal,
  type JournalHook,
} from "./crash-hook.js";
export { gateHumanSide } from "./human-side.js";
export {
  channelIdentity,
  type GateParts,
  type HumanSide,
  type RelayHandler,
  type RunningGate,
  type StartGateOptions,
  startGate,
} from "./start-gate.js";
