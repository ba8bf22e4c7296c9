/**
 * Which two checkpoints a `t3_diff` call compares, from T3's own records (the thread projection):
 * never from anything the client names but a run id of that thread. T3's "turn count" is a run
 * ordinal; only `ready` checkpoints of `completed` runs can be diffed (core `diffableCheckpoints`).
 */
import { type CheckpointSource, diffableCheckpoints } from "./change-summary.js";

export type DiffScope = "run" | "thread";

export type DiffRange =
  /** Nothing to diff: no run has left a checkpoint (or the named run has none); said in `note`. */
  | { readonly kind: "empty"; readonly runId: string | null; readonly note: string }
  | {
      readonly kind: "range";
      /** The run whose changes these are (scope "run"), else the newest run the range covers. */
      readonly runId: string | null;
      readonly fromTurnCount: number;
      readonly toTurnCount: number;
      /** The first diffable run ordinal (where a thread diff falls back to when T3 lacks the base). */
      readonly firstTurnCount: number;
    };

export interface RangeInput {
  readonly scope: DiffScope;
  readonly runId?: string | undefined;
}

export function diffRange(source: CheckpointSource, input: RangeInput): DiffRange {
  const byOrdinal = diffableCheckpoints(source);
  const ordinals = [...byOrdinal.keys()].sort((a, b) => a - b);
  const first = ordinals[0];
  const latest = ordinals.at(-1);
  if (latest === undefined || first === undefined) {
    return { kind: "empty", runId: null, note: "no run of this thread has left a checkpoint yet" };
  }
  if (input.scope === "thread") {
    return {
      kind: "range",
      runId: byOrdinal.get(latest)?.runId ?? null,
      fromTurnCount: 0,
      toTurnCount: latest,
      firstTurnCount: first,
    };
  }
  let to = latest;
  if (input.runId !== undefined) {
    const run = (source.runs ?? []).find((candidate) => candidate.id === input.runId);
    const ordinal = [...byOrdinal].find(([, checkpoint]) => checkpoint.runId === input.runId)?.[0];
    if (ordinal === undefined) {
      const status = run ? `its status is ${run.status ?? "unknown"}` : "the thread has no such run";
      return {
        kind: "empty",
        runId: input.runId,
        note: `run ${input.runId} has no checkpoint to diff (${status})`,
      };
    }
    to = ordinal;
  }
  // The run's changes: from the checkpoint before it (a failed run in between left none).
  const from = ordinals.filter((ordinal) => ordinal < to).at(-1) ?? 0;
  return {
    kind: "range",
    runId: byOrdinal.get(to)?.runId ?? null,
    fromTurnCount: from,
    toTurnCount: to,
    firstTurnCount: first,
  };
}
