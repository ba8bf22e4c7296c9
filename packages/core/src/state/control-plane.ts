import { type ActiveRunRef, activeRunFromShell } from "./active-run.js";
import { CONTROL_PLANE_LIMIT } from "./bounds.js";
import { type EnvironmentRef, type LimitedList, limitedList } from "./ordering.js";
import { SECRET_REQUEST_KIND, SECRET_REQUEST_REASON, shellSecretRequest } from "./secret-requests.js";
import type { ThreadSummary } from "./summary.js";
import { requestReason, THREAD_STATES, type ThreadState } from "./thread-state.js";
import { type NowInput, resolveNow } from "./time.js";
import type { ShellThreadInput } from "./types.js";
import { isSnoozed } from "./woke.js";

/** One visible thread of one environment's shell, with its summary computed at the call's instant. */
export interface ControlPlaneCandidate {
  environment: EnvironmentRef;
  thread: ShellThreadInput;
  summary: ThreadSummary;
}

/** The shell's pending request, compact: the content and answer path are read with `t3_thread`. */
export interface ControlPlanePendingRequest {
  requestId: string | null;
  kind: string | null;
  reason: string;
  since: string | null;
  contentInThreadRead: true;
}

export type ReadyReason = `latest_run_${"completed" | "failed" | "cancelled"}_unsettled` | "woke";
export type ReadyBlocker = "background_work_pending";

export type ControlPlaneItem = ThreadSummary & {
  environment: EnvironmentRef;
  activeRun: ActiveRunRef | null;
  pendingRequest: ControlPlanePendingRequest | null;
  /** Ready items only. */
  readyReasons?: ReadyReason[];
  blockers?: ReadyBlocker[];
  actionableNow?: boolean;
  next: { tool: "t3_thread"; input: { environment: string; threadId: string | null } };
};

export interface ControlPlaneLists {
  needsIntervention: LimitedList<ControlPlaneItem>;
  running: LimitedList<ControlPlaneItem>;
  ready: LimitedList<ControlPlaneItem>;
}

export type StateCounts = Record<ThreadState, number>;

/** `byState` of one environment: every visible thread counted, listed or not. */
export function countByState(threads: ReadonlyArray<{ state: ThreadState }>): StateCounts {
  const counts = Object.fromEntries(THREAD_STATES.map((state) => [state, 0])) as StateCounts;
  for (const thread of threads) counts[thread.state] += 1;
  return counts;
}

const OUTCOME_STATES: ReadonlySet<ThreadState> = new Set(["completed", "failed", "cancelled"]);

/**
 * Why a thread is ready to be picked up, or [] when it is not. Work is "ready" when it can be
 * derived from the shell without guessing: the latest run ended (completed, failed, cancelled), the
 * thread is neither settled nor snoozed; or T3's woke marker is up. Ready is not acceptance.
 */
export function readyReasons(summary: ThreadSummary, snoozed: boolean): ReadyReason[] {
  const reasons: ReadyReason[] = [];
  if (OUTCOME_STATES.has(summary.state) && !summary.settled && !snoozed) {
    reasons.push(`latest_run_${summary.state as "completed" | "failed" | "cancelled"}_unsettled`);
  }
  if (summary.woke === true) reasons.push("woke");
  return reasons;
}

function pendingRequestOf(thread: ShellThreadInput): ControlPlanePendingRequest | null {
  const request = thread.pendingRuntimeRequest;
  if (!request) return secretRequestOf(thread);
  return {
    requestId: request.id ?? null,
    kind: request.kind ?? null,
    reason: requestReason(request.kind),
    since: request.createdAt ?? null,
    contentInThreadRead: true,
  };
}

/** A pending secret request in the same compact form; the item's `nextAction` says where to answer it. */
function secretRequestOf(thread: ShellThreadInput): ControlPlanePendingRequest | null {
  const secret = shellSecretRequest(thread);
  if (!secret) return null;
  return {
    requestId: secret.secretRequestId,
    kind: SECRET_REQUEST_KIND,
    reason: SECRET_REQUEST_REASON,
    since: secret.since,
    contentInThreadRead: true,
  };
}

function itemOf(candidate: ControlPlaneCandidate): ControlPlaneItem {
  const { environment, thread, summary } = candidate;
  const item: ControlPlaneItem = {
    ...summary,
    environment,
    activeRun: activeRunFromShell(thread),
    pendingRequest: pendingRequestOf(thread),
    next: { tool: "t3_thread", input: { environment: environment.alias, threadId: summary.threadId } },
  };
  return item;
}

/**
 * The control-plane snapshot. Each thread lands in at most one list, in this
 * order: `needsIntervention` and `running` follow the canonical state; otherwise `ready` when it
 * has a ready reason; anything else (no run, unknown, settled, still snoozed) is only counted.
 * Each list is in the listing order and cut at `limit`.
 *
 * Ambiguity, decided here: both references say "ready = ended-and-unsettled OR woke" and also
 * "threads without a run or in unknown state are only counted". A woke thread without a run (a
 * snoozed reminder whose time came) satisfies both; it is listed as ready with reason `woke`,
 * because T3's own marker says it wants a look. A woke thread that is running or needs
 * intervention stays in that list only (lists are disjoint).
 */
export function controlPlaneLists(
  candidates: readonly ControlPlaneCandidate[],
  options: { now: NowInput; limit?: number },
): ControlPlaneLists {
  const nowMs = resolveNow(options.now);
  const limit = options.limit ?? CONTROL_PLANE_LIMIT.default;
  const needsIntervention: ControlPlaneItem[] = [];
  const running: ControlPlaneItem[] = [];
  const ready: ControlPlaneItem[] = [];

  for (const candidate of candidates) {
    const snoozed = isSnoozed(candidate.thread, nowMs);
    const { state } = candidate.summary;
    if (state === "needs_intervention") {
      needsIntervention.push(itemOf(candidate));
    } else if (state === "running") {
      running.push(itemOf(candidate));
    } else {
      const reasons = readyReasons(candidate.summary, snoozed);
      if (reasons.length === 0) continue;
      const blockers: ReadyBlocker[] =
        (candidate.thread.pendingBackgroundTasks ?? []).length > 0 ? ["background_work_pending"] : [];
      ready.push({
        ...itemOf(candidate),
        readyReasons: reasons,
        blockers,
        actionableNow: blockers.length === 0,
      });
    }
  }
  return {
    needsIntervention: limitedList(needsIntervention, limit),
    running: limitedList(running, limit),
    ready: limitedList(ready, limit),
  };
}
