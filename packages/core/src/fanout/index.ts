export { type Deadline, type DeadlineScope, type FanOutDeadlines, realDeadlines } from "./deadlines.js";
export { type ClassifiedFailure, classifyFailure, type FanOutFailureCode } from "./failure-codes.js";
export {
  type AttemptOptions,
  type EnvironmentRead,
  type EnvironmentRef,
  FAN_OUT_CONCURRENCY,
  type FanOutEnvironment,
  type FanOutOptions,
  type FanOutResult,
  fanOut,
  PER_ENVIRONMENT_TIMEOUT_MS,
  readWithRetry,
  TOTAL_TIMEOUT_MS,
} from "./fan-out.js";
export { stopOnAbort } from "./stop-on-abort.js";
