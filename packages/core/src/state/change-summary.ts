/**
 * What a thread's agent changed, in one line, from T3's own records: the files of its latest
 * checkpoint and their +/− counts. T3 computes those counts when it captures the checkpoint (the
 * diff against the checkpoint before it), so the summary costs no diff read.
 *
 * "Latest" follows T3's own rule for what `getTurnDiff` can serve: a checkpoint that is `ready`,
 * names a run ordinal, and belongs to a run that completed (when the runs are known).
 */
import type { CheckpointInput, Maybe, RunInput } from "./types.js";

export interface ChangeSummary {
  readonly files: number;
  readonly additions: number;
  readonly deletions: number;
  /** The run whose checkpoint this is, and its ordinal (the "turn count" T3's diff RPCs take). */
  readonly runId: string | null;
  readonly turnCount: number | null;
  readonly checkpointId: string | null;
  /** For people and models: "3 files changed, +12 -4", or "no changes". */
  readonly line: string;
}

export interface CheckpointSource {
  readonly checkpoints?: Maybe<ReadonlyArray<CheckpointInput>>;
  readonly runs?: Maybe<ReadonlyArray<RunInput>>;
}

function count(value: Maybe<number>): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
}

/**
 * The checkpoints `getTurnDiff` can serve, by run ordinal. With runs given, a checkpoint of a run
 * that is not `completed` is left out, as T3 leaves it out.
 */
export function diffableCheckpoints(source: CheckpointSource): Map<number, CheckpointInput> {
  const completed = source.runs
    ? new Set(source.runs.filter((run) => run.status === "completed").map((run) => run.id))
    : undefined;
  const byOrdinal = new Map<number, CheckpointInput>();
  for (const checkpoint of source.checkpoints ?? []) {
    const ordinal = checkpoint.appRunOrdinal;
    if (checkpoint.status !== "ready" || typeof ordinal !== "number" || ordinal < 1) continue;
    if (completed && !completed.has(checkpoint.runId)) continue;
    byOrdinal.set(ordinal, checkpoint);
  }
  return byOrdinal;
}

/** The diffable checkpoint with the highest run ordinal, or undefined when there is none. */
export function latestCheckpoint(source: CheckpointSource): CheckpointInput | undefined {
  let latest: CheckpointInput | undefined;
  for (const [ordinal, checkpoint] of diffableCheckpoints(source)) {
    if (!latest || ordinal > (latest.appRunOrdinal as number)) latest = checkpoint;
  }
  return latest;
}

export function changeLine(files: number, additions: number, deletions: number): string {
  if (files === 0) return "no changes";
  return `${files} ${files === 1 ? "file" : "files"} changed, +${additions} -${deletions}`;
}

/** The summary of one checkpoint's files. */
export function checkpointChangeSummary(checkpoint: CheckpointInput): ChangeSummary {
  const files = checkpoint.files ?? [];
  let additions = 0;
  let deletions = 0;
  for (const file of files) {
    additions += count(file.additions);
    deletions += count(file.deletions);
  }
  return {
    files: files.length,
    additions,
    deletions,
    runId: checkpoint.runId ?? null,
    turnCount: checkpoint.appRunOrdinal ?? null,
    checkpointId: checkpoint.id ?? null,
    line: changeLine(files.length, additions, deletions),
  };
}

/** A thread's change summary from its latest checkpoint; null when no run has left one. */
export function threadChangeSummary(source: CheckpointSource): ChangeSummary | null {
  const latest = latestCheckpoint(source);
  return latest ? checkpointChangeSummary(latest) : null;
}
