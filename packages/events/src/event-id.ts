import { canonicalJson, sha256Hex } from "@t3-connector/core";

/**
 * What makes a transition itself: the environment (its T3 id, never the alias, which an operator
 * may rename), the thread, the run and the transition (`run.completed`, or
 * `thread.needs_input:<requestId>` since one run may raise several requests).
 */
export interface TransitionKey {
  environmentId: string;
  threadId: string;
  runId: string | null;
  transition: string;
}

/**
 * The event id: a hash of the transition key, so the same transition seen twice (live and again
 * after a restart, or by two code paths) always gets the same id and a receiver's dedupe holds.
 * `msg_` follows the Standard Webhooks examples; 32 hex digits (128 bits) never collide in practice.
 */
export function eventId(key: TransitionKey): string {
  const digest = sha256Hex(
    canonicalJson({
      environmentId: key.environmentId,
      threadId: key.threadId,
      runId: key.runId,
      transition: key.transition,
    }),
  );
  return `msg_${digest.slice(0, 32)}`;
}

/** Ids are also file names in the outbox: nothing else is ever accepted as one. */
export const EVENT_ID_PATTERN = /^msg_[0-9a-f]{32}$/;
