/**
 * Constants the command line declares its options with. Kept apart from the modules that use them
 * so that parsing a command line loads none of the operations (start-up time: bench/ops-startup).
 */
export const SEND_DELIVERIES = ["start_immediately", "queue_after_active"] as const;
export type SendDelivery = (typeof SEND_DELIVERIES)[number];

export const DEFAULT_WAIT_TIMEOUT_MS = 300_000;

/**
 * Copies of lists owned elsewhere, for option help only: importing their owners
 * (`@t3-connector/write-engine/actions`, `@t3-connector/core/state`) to parse a command line cost
 * most of the start-up. test/command-constants.test.ts holds each copy equal to its owner, and
 * the values themselves are still checked by the owners when a command runs.
 */
export const THREAD_STATE_NAMES = [
  "running",
  "needs_intervention",
  "completed",
  "failed",
  "cancelled",
  "no_run",
  "unknown",
] as const;
export const RUNTIME_MODE_NAMES = ["approval-required", "auto-accept-edits", "auto", "full-access"] as const;
export const INTERACTION_MODE_NAMES = ["default", "plan"] as const;
