export {
  CRASH_ENV,
  CRASH_POINTS,
  type CrashPoint,
  crashHookFromEnv,
  crashingJournal,
  type JournalHook,
} from "./crash-hook.js";
export type { GateParts, HumanSide, RelayHandler } from "./gate-parts.js";
export { gateHumanSide } from "./human-side.js";
export { channelIdentity, type RunningGate, type StartGateOptions, startGate } from "./start-gate.js";
