export { currentGuardedCall, type GuardedCall, runGuardedCall } from "./call-context.js";
export {
  GUARD_LOG_LINES_PER_WINDOW,
  GUARD_LOG_WINDOW_MS,
  installProcessGuard,
  type ProcessGuard,
  type ProcessGuardOptions,
} from "./process-guard.js";
