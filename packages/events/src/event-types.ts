/** The events this package emits, and the body every webhook POST carries (Standard Webhooks shape). */
export const EVENT_TYPES = [
  "run.completed",
  "run.interrupted",
  "run.failed",
  "thread.needs_input",
  "thread.needs_approval",
  /** Newer T3 servers: the agent asked for a secret, answered only in T3's own app. */
  "thread.needs_secret",
  /**
   * A runtime or secret request that an earlier `thread.needs_*` announced no longer waits (ADR
   * 0073): answered (here, in T3 or by a client) or withdrawn with its run; `resolution` says which.
   */
  "thread.request_resolved",
  /** A client asked the gate for a lease: the person may approve it, from a phone too (ADR 0051). */
  "approval.requested",
  /** The person approved or denied that request, or it expired. */
  "approval.decided",
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
  /**
   * `thread.needs_*` and `thread.request_resolved`: the person's inbox item for this request
   * (`<origin>/inbox#<item>`, the gate's public origin when approval from afar is on); null when
   * no gate is configured (ADR 0073).
   */
  link?: string | null;
  /**
   * `thread.request_resolved`: `answered` (answered here, in T3 or by a client: the run went on)
   * or `withdrawn` (its run was interrupted or cancelled while it waited).
   */
  resolution?: "answered" | "withdrawn";
}

/**
 * `approval.requested` / `approval.decided` (ADR 0051): who asks (the client's words), what approving
 * grants, and where to approve; enough for a push to a phone to say which agent needs the person.
 */
export interface ApprovalEventData {
  request: {
    id: string;
    /** The approval page for this request (the public origin's when approval from afar is on). */
    approvalUrl: string;
    /** The request's item in the person's inbox, on the same origin (ADR 0073). */
    inboxUrl: string;
    expiresAt: string | null;
    scopeFingerprint: string | null;
    runtimeCeiling: string | null;
  };
  /** The client as the gate's page names it: its name, and a session's sign-in time or its version. */
  client: { name: string; version?: string; signedInAt?: string } | null;
  /** The client's own words (untrusted, cleaned by the gate). */
  purpose: string | null;
  /** What approving grants, per environment: project names and catalogue action ids. */
  grants: Array<{ environment: string; environmentId: string; projects: string[]; actions: string[] }>;
  /** `approval.decided`: approved, denied, expired, withdrawn (its session ended) or superseded (a new ask). */
  decision?: string;
  occurredAt: string | null;
  detectedAt: string;
}

/** The JSON body of a POST: `{type, timestamp, data}` plus the id the headers also carry. */
export interface WebhookEvent {
  id: string;
  type: EventType;
  timestamp: string;
  data: EventData;
}

/** An approval event's body: the same shape, its own data (ADR 0051). */
export interface ApprovalWebhookEvent {
  id: string;
  type: "approval.requested" | "approval.decided";
  timestamp: string;
  data: ApprovalEventData;
}

/** Whatever the outbox holds and delivers. */
export type AnyWebhookEvent = WebhookEvent | ApprovalWebhookEvent;
