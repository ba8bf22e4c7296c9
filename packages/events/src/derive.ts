import { activeRunFromShell, type ShellThreadInput, TERMINAL_RUN_STATUSES } from "@t3-connector/core/state";
import type { Run, ThreadShell } from "@t3-connector/core/t3";
import { type EventType, RUN_END_EVENTS } from "./event-types.js";

/** What the outbox remembers of one thread: enough to tell a new transition from an old one. */
export interface ThreadSeen {
  latestRunId: string | null;
  /** The newest run's status as last seen. */
  status: string | null;
  /** The runtime request pending when last seen (the shell shows one at a time). */
  requestId: string | null;
  /** Runs last seen still going: their end must be found even if the shell never shows it. */
  openRuns: string[];
}

export const EMPTY_SEEN: ThreadSeen = Object.freeze({
  latestRunId: null,
  status: null,
  requestId: null,
  openRuns: [],
}) as ThreadSeen;

export type Transition =
  | { type: EventType; runId: string; status: string; occurredAt: string | null; transition: string }
  | {
      type: EventType;
      runId: string | null;
      status: string | null;
      occurredAt: string | null;
      transition: string;
      request: { id: string; kind: string | null; createdAt: string | null };
    };

export interface Derivation {
  transitions: Transition[];
  next: ThreadSeen;
  /**
   * The shell cannot tell everything that happened since `previous`: a run seen going is no
   * longer in the row, or a newer run replaced the newest (runs that started and ended in
   * between, while this process was down or inside T3's coalescing window, never reach the
   * shell). The caller reads the thread's runs and passes them to `runTransitions`.
   */
  needsRuns: boolean;
  /** Runs seen going before that the row no longer names (kept in `next.openRuns` until resolved). */
  lostRuns: string[];
}

/** At most this many unfinished runs are remembered per thread (a queue of them is rare). */
const MAX_OPEN_RUNS = 16;

function runEnd(runId: string, status: string, occurredAt: string | null): Transition | undefined {
  const type = RUN_END_EVENTS[status];
  return type === undefined ? undefined : { type, runId, status, occurredAt, transition: type };
}

/** The wire row, read by the state projection's lenient input type (as the read tools do). */
export function stateRow(row: ThreadShell): ShellThreadInput {
  return row as ShellThreadInput;
}

function completedAt(row: ThreadShell): string | null {
  return typeof row.latestRunCompletedAt === "string" ? row.latestRunCompletedAt : null;
}

/** The runs a shell row names, with the status it gives each. */
function runsInRow(row: ThreadShell): Map<string, string> {
  const runs = new Map<string, string>();
  if (row.latestRunId) runs.set(row.latestRunId, row.status);
  const active = activeRunFromShell(stateRow(row));
  if (active?.runId && !runs.has(active.runId)) runs.set(active.runId, active.status);
  return runs;
}

/** The request kind of a question; every other kind asks for an approval (as `pendingRequests` answers them). */
function requestEvent(kind: string | null): EventType {
  return kind === "user_input" ? "thread.needs_input" : "thread.needs_approval";
}

/**
 * The transitions between what was last seen of a thread and its current shell row. Pure: the
 * same pair always gives the same transitions (and so the same event ids).
 */
export function deriveTransitions(previous: ThreadSeen, row: ThreadShell): Derivation {
  const transitions: Transition[] = [];
  const runs = runsInRow(row);
  for (const [runId, status] of runs) {
    const seenBefore = previous.latestRunId === runId && previous.status === status;
    if (seenBefore) continue;
    const end = runEnd(runId, status, runId === row.latestRunId ? completedAt(row) : null);
    if (end !== undefined) transitions.push(end);
  }

  const request = row.pendingRuntimeRequest;
  if (request && request.id !== previous.requestId) {
    const kind = request.kind ?? null;
    const type = requestEvent(kind);
    const active = activeRunFromShell(stateRow(row));
    transitions.push({
      type,
      runId: active?.runId ?? row.latestRunId ?? null,
      status: active?.status ?? row.status,
      occurredAt: request.createdAt ?? null,
      transition: `${type}:${request.id}`,
      request: { id: request.id, kind, createdAt: request.createdAt ?? null },
    });
  }

  const lost = previous.openRuns.filter((runId) => !runs.has(runId));
  const replaced = previous.latestRunId !== null && previous.latestRunId !== (row.latestRunId ?? null);
  const newThreadWithHistory = previous === EMPTY_SEEN && row.latestRunId != null;
  const open = [...runs].filter(([, status]) => !TERMINAL_RUN_STATUSES.has(status)).map(([id]) => id);
  return {
    transitions,
    next: {
      latestRunId: row.latestRunId ?? null,
      status: row.status,
      requestId: request?.id ?? null,
      // Lost runs stay remembered until the thread's runs say how they ended.
      openRuns: [...new Set([...open, ...lost])].slice(0, MAX_OPEN_RUNS),
    },
    needsRuns: lost.length > 0 || replaced || newThreadWithHistory,
    lostRuns: lost,
  };
}

/**
 * The run ends the shell did not show, from the thread's run list: every ended run newer than the
 * newest run seen before (all of them for a thread never seen), and every run seen going that has
 * ended since. Returns them and the open runs that are still going.
 */
export function runTransitions(
  previous: ThreadSeen,
  runs: readonly Run[],
): { transitions: Transition[]; stillOpen: string[] } {
  const byId = new Map(runs.map((run) => [run.id, run]));
  const floor = previous.latestRunId === null ? undefined : byId.get(previous.latestRunId)?.ordinal;
  const transitions: Transition[] = [];
  for (const run of runs) {
    const newer =
      previous.latestRunId === null ||
      (floor !== undefined && run.ordinal !== undefined && run.ordinal > floor) ||
      previous.latestRunId === run.id;
    const wasOpen = previous.openRuns.includes(run.id);
    if (!newer && !wasOpen) continue;
    if (previous.latestRunId === run.id && previous.status === run.status) continue;
    const end = runEnd(run.id, run.status, run.completedAt ?? null);
    if (end !== undefined) transitions.push(end);
  }
  const stillOpen = previous.openRuns.filter((runId) => {
    const run = byId.get(runId);
    // A run the thread no longer lists cannot be resolved any more: it is forgotten.
    return run !== undefined && !TERMINAL_RUN_STATUSES.has(run.status);
  });
  return { transitions, stillOpen };
}
