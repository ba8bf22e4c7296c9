import { ConnectorError } from "@t3-connector/core";
import { activeRunFromShell, type ShellThreadInput, TERMINAL_RUN_STATUSES } from "@t3-connector/core/state";
import type { ThreadShell } from "@t3-connector/core/t3";
import type { ObservedThread } from "./observed-thread.js";

export type WaitReturnReason =
  | "terminal"
  | "needs_intervention"
  | "no_run"
  | "timeout"
  | "thread_deleted"
  | "subscription_closed";

/** The run the wait follows and its status as last seen (`runId` null: the thread has no run). */
export interface FollowedRun {
  runId: string | null;
  status: string | null;
}

export function isTerminalStatus(status: string | null): boolean {
  return status !== null && TERMINAL_RUN_STATUSES.has(status);
}

/**
 * The run to follow, from the shell row alone: the one the caller named, else the active run,
 * else the newest run (already ended, or the shell would report it active). `runId` is
 * `undefined` when the shell reports activity without naming the run; the snapshot names it.
 */
export function followedFromShell(
  thread: ThreadShell,
  requestedRunId: string | undefined,
): { runId: string | null | undefined; status: string | null } {
  // The wire row is a superset of what the projection reads (its option shapes are looser).
  const active = activeRunFromShell(thread as ShellThreadInput);
  const latestRunId = thread.latestRunId ?? null;
  const runId = requestedRunId ?? (active ? (active.runId ?? undefined) : latestRunId);
  if (runId === null || runId === undefined) return { runId, status: active?.status ?? null };
  if (active !== null && active.runId === runId) return { runId, status: active.status };
  if (runId === latestRunId) return { runId, status: thread.status };
  // A run the shell does not describe (older, or unknown): only the projection can tell.
  return { runId, status: null };
}

/**
 * Whether the wait can answer from the shell without subscribing. With `includeLatestResponse`
 * an ended run or a pending request still needs the projection (for the message), so only
 * "no run" answers at once.
 */
export function decideFromShell(
  thread: ThreadShell,
  followed: { runId: string | null | undefined; status: string | null },
  includeLatestResponse: boolean,
): WaitReturnReason | undefined {
  if (followed.runId === null) return "no_run";
  if (includeLatestResponse || followed.runId === undefined) return undefined;
  if (isTerminalStatus(followed.status)) return "terminal";
  if (thread.pendingRuntimeRequest) return "needs_intervention";
  return undefined;
}

/**
 * After each batch of stream items: the followed run (resolved against the projection) and
 * whether the wait is over. An ended run wins over a pending request (the caller asked about the
 * run); the state still applies the usual precedence. A named run the snapshot does not hold is
 * an error: waiting on it could only ever time out.
 */
export function decideFromStream(
  observed: ObservedThread,
  threadId: string,
  followed: { runId: string | null | undefined; status: string | null },
  requestedRunId: string | undefined,
): { followed: FollowedRun; reason: WaitReturnReason | undefined } {
  if (observed.deleted) return { followed: settle(followed), reason: "thread_deleted" };
  let runId = followed.runId;
  if (runId === undefined) {
    runId =
      observed.newestRun((run) => !isTerminalStatus(run.status))?.id ??
      observed.newestRun(() => true)?.id ??
      null;
  }
  if (runId === null) return { followed: { runId: null, status: null }, reason: "no_run" };
  const run = observed.run(runId);
  if (run === undefined && requestedRunId !== undefined) {
    throw new ConnectorError("not_found", `run ${requestedRunId} is not a run of thread ${threadId}`, {
      details: { threadId, runId: requestedRunId },
    });
  }
  const current: FollowedRun = { runId, status: run?.status ?? followed.status };
  if (isTerminalStatus(current.status)) return { followed: current, reason: "terminal" };
  if (observed.pendingRequests().length > 0) return { followed: current, reason: "needs_intervention" };
  return { followed: current, reason: undefined };
}

function settle(followed: { runId: string | null | undefined; status: string | null }): FollowedRun {
  return { runId: followed.runId ?? null, status: followed.status };
}
