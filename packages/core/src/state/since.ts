import { TERMINAL_RUN_STATUSES } from "../run-status.js";
import type { Maybe, ShellThreadInput } from "./types.js";

/**
 * What a thread's shell row proves happened after an instant. Each kind is dated by a field T3
 * itself stamps on the row (in that machine's clock), so the answer is as exact as the row:
 * - `run_started` / `run_ended`: the newest run only (`latestRunStartedAt`, `latestRunCompletedAt`);
 *   an earlier run that both started and ended in the window is no longer on the row;
 * - `asked_for_person`: a request still pending (approval, question, secret); one answered since
 *   is no longer on the row;
 * - `thread_created` / `thread_archived`: `createdAt`, `archivedAt`.
 * A rename is not dated by T3 at all: the read server reports the renames it saw itself.
 */
export type SinceChangeKind =
  | "run_started"
  | "run_ended"
  | "asked_for_person"
  | "thread_created"
  | "thread_archived"
  | "thread_renamed";

export const SINCE_CHANGE_KINDS: readonly SinceChangeKind[] = [
  "run_started",
  "run_ended",
  "asked_for_person",
  "thread_created",
  "thread_archived",
  "thread_renamed",
];

export interface SinceChange {
  kind: SinceChangeKind;
  /** When it happened (ISO), in the clock of whoever stamped it (see `SinceChangeKind`). */
  at: string;
  runId?: string | null;
  /** `run_ended`: the run's final status (completed, failed, cancelled, interrupted, rolled_back). */
  runStatus?: string;
  /** `asked_for_person`: approval or question kind, or `secret`. */
  requestKind?: string;
  /** `thread_renamed`: the title before and after. */
  from?: string;
  to?: string;
}

/** The timestamp fields of a shell row the since projection reads (all on the wire since 0.0.31). */
export interface SinceRowInput extends ShellThreadInput {
  createdAt?: Maybe<string>;
  latestRunStartedAt?: Maybe<string>;
  pendingSecretRequest?: Maybe<{ id?: Maybe<string>; createdAt?: Maybe<string> }>;
}

/** A boundary: `after` strictly (a cursor's mark, already reported) or `atOrAfter` (a time asked). */
export interface SinceBoundary {
  ms: number;
  inclusive: boolean;
}

const TERMINAL: ReadonlySet<string> = new Set(TERMINAL_RUN_STATUSES);

function within(value: Maybe<string>, boundary: SinceBoundary): value is string {
  if (typeof value !== "string") return false;
  const ms = Date.parse(value);
  if (!Number.isFinite(ms)) return false;
  return boundary.inclusive ? ms >= boundary.ms : ms > boundary.ms;
}

/** The changes of one row after `boundary`, oldest first. */
export function rowChangesSince(row: SinceRowInput, boundary: SinceBoundary): SinceChange[] {
  const changes: SinceChange[] = [];
  const runId = row.latestRunId ?? null;
  if (within(row.createdAt, boundary)) changes.push({ kind: "thread_created", at: row.createdAt });
  if (within(row.latestRunStartedAt, boundary)) {
    changes.push({ kind: "run_started", at: row.latestRunStartedAt, runId });
  }
  const status = row.status ?? null;
  if (status !== null && TERMINAL.has(status) && within(row.latestRunCompletedAt, boundary)) {
    changes.push({ kind: "run_ended", at: row.latestRunCompletedAt, runId, runStatus: status });
  }
  const request = row.pendingRuntimeRequest;
  if (request && within(request.createdAt, boundary)) {
    changes.push({ kind: "asked_for_person", at: request.createdAt, requestKind: request.kind ?? "unknown" });
  }
  const secret = row.pendingSecretRequest;
  if (secret && within(secret.createdAt, boundary)) {
    changes.push({ kind: "asked_for_person", at: secret.createdAt, requestKind: "secret" });
  }
  if (within(row.archivedAt, boundary)) changes.push({ kind: "thread_archived", at: row.archivedAt });
  return changes.sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
}

/**
 * The newest instant a row carries, in its machine's clock: the next call's mark for that
 * machine (every change above also moves `updatedAt`, which is read too).
 */
export function rowHighWaterMs(row: SinceRowInput): number {
  let high = Number.NEGATIVE_INFINITY;
  for (const value of [
    row.updatedAt,
    row.createdAt,
    row.latestRunStartedAt,
    row.latestRunCompletedAt,
    row.archivedAt,
    row.pendingRuntimeRequest?.createdAt,
    row.pendingSecretRequest?.createdAt,
  ]) {
    const ms = typeof value === "string" ? Date.parse(value) : Number.NaN;
    if (Number.isFinite(ms) && ms > high) high = ms;
  }
  return high;
}

export interface SinceCounts {
  runsStarted: number;
  runsEnded: number;
  runsFailed: number;
  askedForPerson: number;
  threadsCreated: number;
  threadsArchived: number;
  threadsRenamed: number;
}

/** Counts of `changes` by kind (`runsFailed` counts the ended runs whose status is `failed`). */
export function countSinceChanges(changes: Iterable<SinceChange>): SinceCounts {
  const counts: SinceCounts = {
    runsStarted: 0,
    runsEnded: 0,
    runsFailed: 0,
    askedForPerson: 0,
    threadsCreated: 0,
    threadsArchived: 0,
    threadsRenamed: 0,
  };
  for (const change of changes) {
    if (change.kind === "run_started") counts.runsStarted += 1;
    else if (change.kind === "run_ended") {
      counts.runsEnded += 1;
      if (change.runStatus === "failed") counts.runsFailed += 1;
    } else if (change.kind === "asked_for_person") counts.askedForPerson += 1;
    else if (change.kind === "thread_created") counts.threadsCreated += 1;
    else if (change.kind === "thread_archived") counts.threadsArchived += 1;
    else counts.threadsRenamed += 1;
  }
  return counts;
}
