/**
 * Thread and run events of every T3 environment, pushed to a webhook signed per Standard Webhooks
 * through a durable outbox (ADR 0015). `startEventsService` is the whole thing; the rest is
 * exported for the CLI (`t3-connector events`, `events status`, `events retry`) and for hosts.
 */
export {
  type ApprovalFeedEntry,
  type ApprovalSource,
  approvalEvent,
} from "./approval-follower.js";
export { DEFAULT_DELIVERY_POLICY, type DeliveryPolicy, retryDelayMs } from "./backoff.js";
export { deriveTransitions, EMPTY_SEEN, runTransitions, type ThreadSeen, type Transition } from "./derive.js";
export { EVENT_ID_PATTERN, eventId, type TransitionKey } from "./event-id.js";
export {
  type AnyWebhookEvent,
  type ApprovalEventData,
  type ApprovalWebhookEvent,
  EVENT_TYPES,
  type EventData,
  type EventType,
  isEventType,
  type WebhookEvent,
} from "./event-types.js";
export type { EventFilters } from "./filters.js";
export type { FollowerReady } from "./follower.js";
export { type OutboxStatus, readOutboxStatus, retryDeadLetter } from "./outbox.js";
export {
  type EventsHostContext,
  type EventsService,
  type EventsServiceOptions,
  eventsBackgroundService,
  parseHookUrl,
  startEventsService,
} from "./service.js";
export { createSigner, type WebhookSigner } from "./signer.js";
export { defaultEventsStateDir } from "./state-dir.js";
