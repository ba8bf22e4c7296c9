export { type FollowStreamOptions, type FollowStreamOutcome, followThreadStream } from "./follow-stream.js";
export { type FollowedRun, isTerminalStatus, type WaitReturnReason } from "./followed-run.js";
export { ObservedThread } from "./observed-thread.js";
export { type WaitForThreadInput, type WaitForThreadOptions, waitForThread } from "./wait-for-thread.js";
export { buildWaitResult, type WaitPendingRequest, type WaitResult } from "./wait-result.js";
