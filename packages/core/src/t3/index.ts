export {
  AnswerBudget,
  answerTooLarge,
  type CappedText,
  MAX_T3_ANSWER_BYTES,
  MAX_T3_ANSWER_BYTES_IN_FLIGHT,
  readCappedText,
} from "./capped-body.js";
export { parseAcceptedCommandTypes } from "./decode-defect.js";
export { type ExchangeDeadline, exchangeDeadline } from "./exchange-deadline.js";
export * from "./http-client.js";
export { httpErrorFromAnswer } from "./http-errors.js";
export { nodeHttpFetch, type T3Answer, type T3Fetch, type T3FetchInit } from "./node-http-fetch.js";
export * from "./pairing.js";
export * from "./route-absence.js";
export {
  DEFAULT_CALL_TIMEOUT_MS,
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_MAX_IN_FLIGHT,
  DEFAULT_PING_INTERVAL_MS,
  type ShellSubscriptionOptions,
  T3RpcClient,
  type T3RpcConnectOptions,
  type ThreadSubscriptionOptions,
} from "./rpc/client.js";
export type { CallOptions, Subscription } from "./rpc/connection.js";
export { nodeWebSocketFactory, type WebSocketFactory, type WebSocketLike } from "./rpc/socket.js";
export { systemTimers, type TimerHandle, type Timers } from "./rpc/timers.js";
export * from "./subscriptions.js";
export * from "./thread-window.js";
export * from "./wire/index.js";
