/**
 * `orchestration.getTurnDiff` and `getFullThreadDiff`, by 0.0.31's own rules (its
 * CheckpointDiffQuery, fixtures 75/76 and 120–134):
 *
 * - from = to answers an empty diff before any lookup (125);
 * - a turn count is a run ordinal; only `ready` checkpoints of `completed` runs count, and asking
 *   past the highest is the range error naming it (75, 124);
 * - from 0 is the ref before the first run, found through the root checkpoint scope *of run 1*;
 *   the scope names the newest run once another starts, so from 0 then fails with
 *   `CheckpointRefUnavailableError` (133, 134), as the real server does;
 * - the full thread diff is the turn diff from 0.
 */
import { z } from "zod";
import { decodeWith, idString, nonNegativeInt } from "./commands/decode.js";
import type { RpcOutcome } from "./contract.js";
import type { SimStore, ThreadRecord } from "./store.js";
import { diffTrees } from "./tree-diff.js";
import type { FileTree } from "./workspace-files.js";

const turnDiffInput = z.object({
  threadId: idString(),
  fromTurnCount: nonNegativeInt(),
  toTurnCount: nonNegativeInt(),
  ignoreWhitespace: z.boolean().optional(),
});
const fullDiffInput = z.object({
  threadId: idString(),
  toTurnCount: nonNegativeInt(),
  ignoreWhitespace: z.boolean().optional(),
});

type Operation = "turn" | "full";

const FAILURE: Record<Operation, { tag: string; message: string }> = {
  turn: { tag: "OrchestrationGetTurnDiffError", message: "Failed to load turn diff" },
  full: { tag: "OrchestrationGetFullThreadDiffError", message: "Failed to load full thread diff" },
};

function fail(operation: Operation, name: string, message: string): RpcOutcome {
  const { tag, message: said } = FAILURE[operation];
  return { kind: "fail", error: { _tag: tag, message: said, cause: { name, message } } };
}

/** The run ordinals `getTurnDiff` can serve: ready checkpoints of completed runs. */
function servedOrdinals(record: ThreadRecord): Set<number> {
  const completed = new Set(
    [...record.runs.values()].filter((run) => run.status === "completed").map((run) => run.id),
  );
  const ordinals = new Set<number>();
  for (const checkpoint of record.checkpoints.values()) {
    if (checkpoint.status !== "ready" || checkpoint.appRunOrdinal === null || checkpoint.runId === null)
      continue;
    if (completed.has(checkpoint.runId)) ordinals.add(checkpoint.appRunOrdinal);
  }
  return ordinals;
}

/** Whether the ref before the first run can still be found (see the header). */
function baseRefFound(record: ThreadRecord): boolean {
  const firstRun = [...record.runs.values()].find((run) => run.ordinal === 1);
  return [...record.checkpointScopes.values()].some(
    (scope) => scope.kind === "root_run" && firstRun !== undefined && scope.runId === firstRun.id,
  );
}

/**
 * A checkpoint's tree never changes once taken (a `ReadonlyMap` snapshot), so the diff between two
 * is built once: a client that pages a large diff asks for the same pair once per page.
 */
const diffs = new WeakMap<FileTree, WeakMap<FileTree, string>>();
function diffBetween(before: FileTree, after: FileTree): string {
  let byAfter = diffs.get(before);
  if (byAfter === undefined) {
    byAfter = new WeakMap();
    diffs.set(before, byAfter);
  }
  let diff = byAfter.get(after);
  if (diff === undefined) {
    diff = diffTrees(before, after).diff;
    byAfter.set(after, diff);
  }
  return diff;
}

function turnDiff(
  store: SimStore,
  operation: Operation,
  threadId: string,
  from: number,
  to: number,
): RpcOutcome {
  const success = (diff: string): RpcOutcome => ({
    kind: "success",
    value: { fromTurnCount: from, toTurnCount: to, threadId, diff },
  });
  if (from === to) return success("");
  const record = store.liveThread(threadId);
  const served = record ? servedOrdinals(record) : new Set<number>();
  const current = Math.max(0, ...served);
  const unavailable = (turn: number) =>
    fail(
      operation,
      "CheckpointRefUnavailableError",
      `Checkpoint unavailable for thread ${threadId} turn ${turn}: Checkpoint ref is unavailable for turn ${turn}.`,
    );
  if (!record || to > current) {
    return fail(
      operation,
      "CheckpointTurnRangeUnavailableError",
      `Checkpoint unavailable for thread ${threadId} turn ${to}: Turn diff range exceeds current turn count: requested ${to}, current ${current}.`,
    );
  }
  const after = served.has(to) ? record.checkpointTrees.get(to) : undefined;
  if (!after) return unavailable(to);
  const before =
    from === 0
      ? baseRefFound(record)
        ? record.checkpointTrees.get(0)
        : undefined
      : served.has(from)
        ? record.checkpointTrees.get(from)
        : undefined;
  if (!before) return unavailable(from);
  return success(diffBetween(before, after));
}

export function getTurnDiff(store: SimStore, payload: unknown): RpcOutcome {
  const input = decodeWith(turnDiffInput, payload);
  if (!input.ok) return { kind: "die", defect: input.defect };
  const { threadId, fromTurnCount, toTurnCount } = input.value;
  if (fromTurnCount > toTurnCount)
    return { kind: "die", defect: "fromTurnCount must be less than or equal to toTurnCount" };
  return turnDiff(store, "turn", threadId, fromTurnCount, toTurnCount);
}

export function getFullThreadDiff(store: SimStore, payload: unknown): RpcOutcome {
  const input = decodeWith(fullDiffInput, payload);
  if (!input.ok) return { kind: "die", defect: input.defect };
  const { threadId, toTurnCount } = input.value;
  return turnDiff(store, "full", threadId, 0, toTurnCount);
}
