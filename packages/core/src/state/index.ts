/**
 * The state projection: pure functions from T3's wire rows to the connector's canonical state,
 * summaries, pending requests and lists. No I/O, no clock reads (`now` is passed in).
 */
export * from "./active-run.js";
export * from "./attention.js";
export * from "./bounds.js";
export * from "./change-summary.js";
export * from "./control-plane.js";
export * from "./detail.js";
export * from "./diff-range.js";
export * from "./inbox.js";
export * from "./messages.js";
export * from "./model.js";
export * from "./ordering.js";
export * from "./pending-requests.js";
export * from "./pull-requests.js";
export * from "./request-content.js";
export * from "./secret-requests.js";
export * from "./since.js";
export * from "./summary.js";
export { ELLIPSIS, keepEnd, keepStart } from "./text.js";
export * from "./thread-list.js";
export * from "./thread-read.js";
export * from "./thread-state.js";
export { type NowInput, parseInstant, resolveNow } from "./time.js";
export * from "./types.js";
export * from "./woke.js";
