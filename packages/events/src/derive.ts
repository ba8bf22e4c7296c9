import {
  activeRunFromShell,
  SECRET_REQUEST_KIND,
  type ShellThreadInput,
  TERMINAL_RUN_STATUSES,
} from "@t3-connector/core/state";
import type { Run, ThreadShell } from "@t3-connector/core/t3";
import { type EventType, RUN_END_EVENTS } from "./event-types.js";

/** What the outbox remembers of one thread: enough to tell a new transition from an old one. */
export interface ThreadSeen {
  latestRunId: string | null;
  /** The newest run's status as last seen. */
  status: string | null;
  /** The runtime request pending when last seen (the shell shows one at a time). */
  requestId: string | null;
  /** Its kind, so its resolution can be told as the same kind of request; absent in older state. */
  requestKind?: string | null;
  /** The secret request pending when last seen (newer servers); absent in older saved state. */
  secretRequestId?: string | null;
  /** Runs last seen still going: their end must be found even if the shell never shows it. */
  openRuns: string[];
  /**
   * The thread's run list must be read: runs may have started and ended where the shell could not
   * show them (while this process was down, or inside T3's coalescing window). Covers every run
   * newer than `after` (all runs when null) and the open runs. Persisted, so a restart still does it.
   */
  runsCheck?: { after: string | null };
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
      resolution?: "answered" | "withdrawn";
    };

export interface Derivation {
  transitions: Transition[];
  /** What to remember; its `runsCheck` says the caller must read the run list (`runTransitions`). */
  next: ThreadSeen;
}

/** Run statuses that end a run without its agent going on: a request it waited on was withdrawn. */
const WITHDRAWING_STATUSES: ReadonlySet<string> = new Set(["interrupted", "cancelled", "rolled_back"]);

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
 * The transitions between what was last seen of a thread (undefined: never seen) and its current
 * shell row. Pure: the same pair always gives the same transitions (and so the same event ids).
 *
 * The shell cannot tell everything, so some comparisons ask for a run-list check: a run seen
 * going that the row no longer names (always); and, when `catchingUp` (the first comparison after
 * a start or a resync, when anything may have happened unseen), a newer run replacing the newest
 * or a thread first seen with runs. Live, those two only mean runs that started and ended inside
 * one of T3's ~50 ms shell coalescing windows, and a check per run start would cost a thread read
 * each time.
 */
export function deriveTransitions(
  seen: ThreadSeen | undefined,
  row: ThreadShell,
  options: { catchingUp: boolean } = { catchingUp: true },
): Derivation {
  const previous = seen ?? EMPTY_SEEN;
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

  const secret = row.pendingSecretRequest as { id?: unknown; createdAt?: unknown } | null | undefined;
  const secretId = typeof secret?.id === "string" ? secret.id : null;
  if (secretId !== null && secretId !== (previous.secretRequestId ?? null)) {
    const active = activeRunFromShell(stateRow(row));
    const createdAt = typeof secret?.createdAt === "string" ? secret.createdAt : null;
    transitions.push({
      type: "thread.needs_secret",
      runId: active?.runId ?? row.latestRunId ?? null,
      status: active?.status ?? row.status,
      occurredAt: createdAt,
      transition: `thread.needs_secret:${secretId}`,
      request: { id: secretId, kind: SECRET_REQUEST_KIND, createdAt },
    });
  }

  transitions.push(...resolvedTransitions(previous, row, request?.id ?? null, secretId));

  const lost = previous.openRuns.filter((runId) => !runs.has(runId));
  const replaced =
    options.catchingUp && previous.latestRunId !== null && previous.latestRunId !== (row.latestRunId ?? null);
  const newThreadWithHistory = options.catchingUp && seen === undefined && row.latestRunId != null;
  const open = [...runs].filter(([, status]) => !TERMINAL_RUN_STATUSES.has(status)).map(([id]) => id);
  // A check still pending keeps its (older) floor: it covers more.
  const runsCheck =
    previous.runsCheck ??
    (lost.length > 0 || replaced || newThreadWithHistory ? { after: previous.latestRunId } : undefined);
  return {
    transitions,
    next: {
      latestRunId: row.latestRunId ?? null,
      status: row.status,
      requestId: request?.id ?? null,
      ...(request?.id ? { requestKind: request.kind ?? null } : {}),
      ...(secretId === null ? {} : { secretRequestId: secretId }),
      // Lost runs stay remembered until the thread's runs say how they ended.
      openRuns: [...new Set([...open, ...lost])].slice(0, MAX_OPEN_RUNS),
      ...(runsCheck === undefined ? {} : { runsCheck }),
    },
  };
}

/**
 * What was announced as waiting and no longer is (ADR 0073): a runtime or secret request seen
 * pending before and not now. A run stopped while it waited withdrew it; any other way on,
 * someone answered it (the shell cannot tell who).
 */
function resolvedTransitions(
  previous: ThreadSeen,
  row: ThreadShell,
  requestId: string | null,
  secretId: string | null,
): Transition[] {
  const resolution = WITHDRAWING_STATUSES.has(row.status) ? ("withdrawn" as const) : ("answered" as const);
  const resolved = (id: string, kind: string | null): Transition => ({
    type: "thread.request_resolved",
    runId: row.latestRunId ?? null,
    status: row.status,
    occurredAt: null,
    transition: `thread.request_resolved:${id}`,
    request: { id, kind, createdAt: null },
    resolution,
  });
  const transitions: Transition[] = [];
  if (previous.requestId !== null && previous.requestId !== requestId) {
    transitions.push(resolved(previous.requestId, previous.requestKind ?? null));
  }
  const previousSecret = previous.secretRequestId ?? null;
  if (previousSecret !== null && previousSecret !== secretId) {
    transitions.push(resolved(previousSecret, SECRET_REQUEST_KIND));
  }
  return transitions;
}

/**
 * The run ends the shell did not show, from the thread's run list: every ended run newer than
 * `check.after` (all of them when null; `after` itself included), and every open run that has
 * ended. Returns them and the open runs that are still going (a run no longer listed is dropped).
 */
export function runTransitions(
  check: { after: string | null },
  openRuns: readonly string[],
  runs: readonly Run[],
): { transitions: Transition[]; stillOpen: string[] } {
  const byId = new Map(runs.map((run) => [run.id, run]));
  const floor = check.after === null ? undefined : byId.get(check.after)?.ordinal;
  const transitions: Transition[] = [];
  for (const run of runs) {
    const newer =
      check.after === null ||
      check.after === run.id ||
      (floor !== undefined && run.ordinal !== undefined && run.ordinal > floor);
    if (!newer && !openRuns.includes(run.id)) continue;
    const end = runEnd(run.id, run.status, run.completedAt ?? null);
    if (end !== undefined) transitions.push(end);
  }
  const stillOpen = openRuns.filter((runId) => {
    const run = byId.get(runId);
    return run !== undefined && !TERMINAL_RUN_STATUSES.has(run.status);
  });
  return { transitions, stillOpen };
}
