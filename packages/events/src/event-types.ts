/** The events this package emits, and the body every webhook POST carries (Standard Webhooks shape). */
export const EVENT_TYPES = [
  "run.completed",
  "run.interrupted",
  "run.failed",
  "thread.needs_input",
  "thread.needs_approval",
  /** Newer T3 servers: the agent asked for a secret, answered only in T3's own app. */
  "thread.needs_secret",
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

export function isEventType(value: string): value is EventType {
  return (EVENT_TYPES as readonly string[]).includes(value);
}

/** The run statuses that end a run and have an event of their own (cancelled and rolled_back have none). */
export const RUN_END_EVENTS: Readonly<Record<string, EventType>> = {
  completed: "run.completed",
  interrupted: "run.interrupted",
  failed: "run.failed",
};

export interface EventData {
  environment: { alias: string; id: string };
  project: { id: string | null; title: string | null };
  thread: { id: string; title: string | null };
  run: { id: string | null; status: string | null };
  /**
   * The canonical state (the read tools' `state`) the transition put the thread in: `completed`,
   * `failed`, `cancelled` (an interrupted run) or `needs_intervention` (a pending request).
   */
  state: string;
  /** When T3 says it happened (run completion, request creation); null when T3 does not say. */
  occurredAt: string | null;
  /** When this process saw it. */
  detectedAt: string;
  /**
   * `thread.needs_input` / `thread.needs_approval`: the pending runtime request (answer it by id).
   * `thread.needs_secret`: the pending secret request (kind `secret_request`), answered in T3 itself;
   * the value never travels through the connector.
   */
  request?: { id: string; kind: string | null; createdAt: string | null };
  /** `run.failed`: T3's last error of the thread, when it has one. */
  error?: string | null;
}

/** The JSON body of a POST: `{type, timestamp, data}` plus the id the headers also carry. */
export interface WebhookEvent {
  id: string;
  type: EventType;
  timestamp: string;
  data: EventData;
}
