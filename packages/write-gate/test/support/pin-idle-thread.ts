import { IDLE_THREAD } from "@t3-connector/test-support/sim-world";

/**
 * A relay dispatch that pins alpha's idle thread: the plainest write there is, for the tests about
 * the relay, its authentication and its attacks rather than about an action. `extra` overrides.
 */
export function pinIdleThread(
  leaseId: string,
  operationId: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    op: "dispatch",
    leaseId,
    environment: "alpha",
    operationId,
    action: "thread.pin",
    input: { threadId: IDLE_THREAD },
    ...extra,
  };
}
