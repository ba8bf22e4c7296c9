/**
 * `wait <ref>`: blocks until the thread needs nothing from its run, following the thread's event
 * stream through the read server's wait (in slices no longer than the read tool allows).
 * Outcomes and exit codes: done 0, needs_human 2, failed 3, timeout 4.
 */
import { ConnectorError } from "@t3-connector/core";
import type { OpsEnvironments } from "./environments.js";
import { resolveThread } from "./references.js";
import { runQuery } from "./run-query.js";

export const WAIT_OUTCOMES = { done: 0, needs_human: 2, failed: 3, timeout: 4 } as const;
export type WaitOutcome = keyof typeof WAIT_OUTCOMES;
/** The read tool's own ceiling per call. */
const SLICE_MS = 5_000;

import { DEFAULT_WAIT_TIMEOUT_MS } from "./command-constants.js";

interface WaitSlice {
  state: string;
  statusRun: string | null;
  runId: string | null;
  returnReason: string;
  pendingRequest: unknown;
  elapsedMs: number;
}

export interface WaitResult {
  outcome: WaitOutcome;
  exitCode: number;
  environment: { alias: string; environmentId: string };
  threadId: string;
  title: string;
  state: string;
  statusRun: string | null;
  runId: string | null;
  pendingRequest: unknown;
  elapsedMs: number;
}

function outcomeOf(slice: WaitSlice): WaitOutcome | null {
  if (slice.returnReason === "timeout" || slice.returnReason === "subscription_closed") return null;
  if (slice.state === "needs_intervention") return "needs_human";
  if (slice.returnReason === "thread_deleted") return "failed";
  if (slice.state === "failed" || slice.state === "cancelled") return "failed";
  return "done";
}

export async function waitForThread(
  environments: OpsEnvironments,
  environment: string | undefined,
  reference: string,
  options: { timeoutMs?: number } = {},
): Promise<WaitResult> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS;
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1) {
    throw new ConnectorError("invalid_input", "timeout must be a positive number of milliseconds");
  }
  const { env, thread } = await resolveThread(environments, reference, environment);
  const started = environments.clock.now();
  let last: WaitSlice | undefined;
  let closedInARow = 0;
  for (;;) {
    const remaining = timeoutMs - (environments.clock.now() - started);
    if (remaining <= 0 && last !== undefined) break;
    const slice = (await runQuery(environments, env.config.alias, "wait", {
      threadId: thread.id,
      timeoutMs: Math.max(1, Math.min(SLICE_MS, remaining)),
    })) as WaitSlice;
    last = slice;
    closedInARow = slice.returnReason === "subscription_closed" ? closedInARow + 1 : 0;
    // A stream that keeps closing at once would otherwise turn the wait into a busy loop.
    if (closedInARow >= 3) {
      throw new ConnectorError("unavailable", `the event stream of thread ${thread.id} keeps closing`);
    }
    const outcome = outcomeOf(slice);
    if (outcome !== null) return result(outcome, slice);
  }
  return result("timeout", last);

  function result(outcome: WaitOutcome, slice: WaitSlice): WaitResult {
    return {
      outcome,
      exitCode: WAIT_OUTCOMES[outcome],
      environment: { alias: env.config.alias, environmentId: env.config.environmentId },
      threadId: thread.id,
      title: thread.title,
      state: slice.state,
      statusRun: slice.statusRun,
      runId: slice.runId,
      pendingRequest: slice.pendingRequest,
      elapsedMs: environments.clock.now() - started,
    };
  }
}
