import type { ShellThreadInput } from "./types.js";

/** The run a thread is working on right now, as far as its shell row tells. */
export interface ActiveRunRef {
  /** Null when the shell reports activity but cannot name the run (see `activeRunFromShell`). */
  runId: string | null;
  status: string;
}

function present(value: string | null | undefined): value is string {
  return typeof value === "string" && value.length > 0;
}

/**
 * The shell's `status` is the status of the NEWEST run; a run queued behind another
 * (or a queued message promoted to steer, which leaves the newest run cancelled) makes it differ
 * from the run that is actually working, so the active run is read from `activeRunId` and
 * `activityRunStatus` first.
 */
export function activeRunFromShell(thread: ShellThreadInput): ActiveRunRef | null {
  const { activeRunId, latestRunId, activityRunStatus } = thread;
  if (present(activeRunId)) {
    // A row that names the active run but omits its status still has a run at work.
    if (activeRunId === latestRunId) return { runId: activeRunId, status: thread.status ?? "running" };
    // An older run is active while a newer one exists: the newest run's status says nothing about it.
    return {
      runId: activeRunId,
      status: present(activityRunStatus) && activityRunStatus !== "waiting" ? activityRunStatus : "running",
    };
  }
  if (present(activityRunStatus)) {
    // A waiting run (turn done, checkpoint pending) is not in `activeRunId`; it can be named only
    // when the newest run has that very status.
    return {
      runId: thread.status === activityRunStatus ? (latestRunId ?? null) : null,
      status: activityRunStatus,
    };
  }
  return null;
}
