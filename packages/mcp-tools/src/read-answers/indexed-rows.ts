import type { ListedThread, ListedThreadFilter } from "@t3-connector/core/mirror";
import { THREAD_STATES, type ThreadState } from "@t3-connector/core/state";
import type { ThreadShell } from "@t3-connector/core/t3";
import { type ShellView, threadIndexOf } from "./shell-view.js";

/**
 * The rows a state-driven list can contain, taken from the view's ordered thread index instead of
 * a pass over every visible row, so `t3_atencao` and `t3_control_plane` cost what their lists hold.
 * Each function answers a superset of the list's rows that the list's own rule then filters (the
 * rules stay in core/state, applied to fewer rows). Synchronous, like every index read.
 */

function visibleFilter(view: ShellView): ListedThreadFilter {
  return { allowedProjects: view.allowedProjects, includeNoRun: true };
}

/** Attention candidates: needing intervention, or failed and not settled. */
export function attentionRows(view: ShellView): ThreadShell[] {
  const index = threadIndexOf(view);
  const filter = visibleFilter(view);
  const rows: ThreadShell[] = [];
  for (const entry of index.inState("needs_intervention", filter)) rows.push(entry.thread);
  for (const entry of index.inState("failed", filter)) if (!entry.settled) rows.push(entry.thread);
  return rows;
}

/** The states whose rows land in a control-plane list without the clock's help. */
const LISTED_STATES: readonly ThreadState[] = [
  "needs_intervention",
  "running",
  "completed",
  "failed",
  "cancelled",
];

/**
 * Control-plane candidates and counts: rows that can land in `needsIntervention`, `running` or
 * `ready` (a ready row either ended unsettled, or carries a snooze time: only those can be woke),
 * every visible row counted per state.
 */
export function controlPlaneRows(view: ShellView): {
  rows: ThreadShell[];
  byState: Record<ThreadState, number>;
  visible: number;
} {
  const index = threadIndexOf(view);
  const filter = visibleFilter(view);
  const seen = new Set<string>();
  const rows: ThreadShell[] = [];
  const take = (entry: ListedThread) => {
    if (seen.has(entry.id)) return;
    seen.add(entry.id);
    rows.push(entry.thread);
  };
  for (const state of LISTED_STATES) {
    for (const entry of index.inState(state, filter)) {
      // A settled outcome is never ready by its outcome (it may still be woke: taken below).
      if (state === "needs_intervention" || state === "running" || !entry.settled) take(entry);
    }
  }
  for (const entry of index.snoozing(filter)) take(entry);
  const counts = index.countByState(filter);
  const byState = Object.fromEntries(THREAD_STATES.map((state) => [state, counts.get(state) ?? 0])) as Record<
    ThreadState,
    number
  >;
  const visible = THREAD_STATES.reduce((sum, state) => sum + byState[state], 0);
  return { rows, byState, visible };
}
