/**
 * `t3_diff`'s body: the range from T3's records, the diff from T3 (`getTurnDiff` /
 * `getFullThreadDiff`), parsed once, then one page of it. T3 0.0.31 loses the ref before a
 * thread's first run once a second run starts (fixtures 113/114); a thread diff then starts after
 * the first diffable run and says so (`complete: false`, `note`), with that run's counts from its
 * checkpoint.
 */
import { ConnectorError, isConnectorError } from "@t3-connector/core";
import { parseUnifiedDiff } from "@t3-connector/core/diff";
import { readWithRetry } from "@t3-connector/core/fanout";
import {
  type CheckpointInput,
  checkpointChangeSummary,
  diffableCheckpoints,
  type ThreadProjectionInput,
} from "@t3-connector/core/state";
import type { TurnDiff } from "@t3-connector/core/t3";
import { locateThread } from "../by-id/locate-thread.js";
import { readLocatedProjection } from "../by-id/thread-detail.js";
import type { ReadContext } from "../read-context.js";
import { environmentDeadline, withDeadline } from "../scope/read-scope.js";
import { DIFF_CAPS, type DiffCaps, type DiffFileOut, diffPage, onePathPage } from "./diff-page.js";
import { type DiffRange, type DiffScope, diffRange } from "./diff-range.js";

export interface ThreadDiffInput {
  environment?: string | undefined;
  threadId: string;
  scope?: DiffScope | undefined;
  runId?: string | undefined;
  path?: string | undefined;
  cursor?: string | undefined;
  ignoreWhitespace?: boolean | undefined;
}

export interface ThreadDiffOutput {
  environment: { alias: string; environmentId: string };
  threadId: string;
  scope: DiffScope;
  runId: string | null;
  fromTurnCount: number;
  toTurnCount: number;
  files: DiffFileOut[];
  totals: { files: number; additions: number; deletions: number };
  truncated: boolean;
  /** False when T3 could not serve the whole range asked for; `note` says what is missing. */
  complete: boolean;
  note?: string;
  nextCursor?: string;
}

const CURSOR_QUERY = "t3_diff";

function cursorQuery(
  alias: string,
  threadId: string,
  scope: DiffScope,
  range: DiffRange,
  path?: string,
): string {
  const span = range.kind === "range" ? `${range.fromTurnCount}-${range.toTurnCount}` : "empty";
  return `${CURSOR_QUERY}:${JSON.stringify([alias, threadId, scope, range.runId, span, path ?? null])}`;
}

/** Whether T3 refused because the base ref (before the first run) is gone (fixtures 113/114). */
function baseRefLost(error: unknown): boolean {
  if (!isConnectorError(error, "rpc_failure")) return false;
  return error.details?.checkpointError === "CheckpointRefUnavailableError" && error.details.turn === 0;
}

export async function readThreadDiff(
  context: ReadContext,
  input: ThreadDiffInput,
  signal: AbortSignal,
  caps: DiffCaps = DIFF_CAPS,
): Promise<ThreadDiffOutput> {
  const scope = input.scope ?? "run";
  if (scope === "thread" && input.runId !== undefined) {
    throw new ConnectorError("invalid_input", 'runId names one run; leave it out with scope "thread"');
  }
  const located = await locateThread(context, input.environment, input.threadId, signal);
  const fetched = await readLocatedProjection(context, located, signal);
  const projection = fetched.projection as ThreadProjectionInput;
  const range = diffRange(projection, { scope, runId: input.runId });
  const alias = located.environment.alias;
  const query = cursorQuery(alias, input.threadId, scope, range, input.path);
  const start = input.cursor === undefined ? 0 : startOf(context, input.cursor, query);
  const base = {
    environment: { alias, environmentId: located.environment.environmentId },
    threadId: input.threadId,
    scope,
    runId: range.runId,
  };
  if (range.kind === "empty") {
    return {
      ...base,
      fromTurnCount: 0,
      toTurnCount: 0,
      files: [],
      totals: { files: 0, additions: 0, deletions: 0 },
      truncated: false,
      complete: true,
      note: range.note,
    };
  }

  const handle = context.registry.resolve(alias);
  const ignoreWhitespace = input.ignoreWhitespace ?? false;
  const fetchDiff = (from: number, to: number): Promise<TurnDiff> =>
    withDeadline(environmentDeadline(context, alias), signal, (deadline) =>
      readWithRetry(
        handle,
        async (connection, readSignal) => {
          const rpc = await connection.rpc();
          const options = { signal: readSignal };
          return from === 0 && scope === "thread"
            ? rpc.getFullThreadDiff({ threadId: input.threadId, toTurnCount: to, ignoreWhitespace }, options)
            : rpc.getTurnDiff(
                { threadId: input.threadId, fromTurnCount: from, toTurnCount: to, ignoreWhitespace },
                options,
              );
        },
        deadline,
      ).then((read) => read.value),
    );

  let from = range.fromTurnCount;
  let note: string | undefined;
  let diff: TurnDiff | undefined;
  try {
    diff = await fetchDiff(from, range.toTurnCount);
  } catch (error) {
    if (!baseRefLost(error)) throw error;
    const first = diffableCheckpoints(projection).get(range.firstTurnCount);
    const firstLine = first ? checkpointChangeSummary(first).line : "unknown";
    if (range.firstTurnCount < range.toTurnCount) {
      from = range.firstTurnCount;
      note = `this T3 no longer has the state before the thread's first run, so the diff starts after run ${from} (that run: ${firstLine})`;
      diff = await fetchDiff(from, range.toTurnCount);
    } else {
      note = `this T3 no longer has the state before run ${range.toTurnCount}, so no patch can be shown; its checkpoint records ${firstLine}`;
      return summaryOnly(base, range.toTurnCount, first, note);
    }
  }

  const parsed = parseUnifiedDiff(diff?.diff ?? "");
  const text = diff?.diff ?? "";
  let page: ReturnType<typeof diffPage>;
  if (input.path !== undefined) {
    const file = parsed.files.find(
      (candidate) => candidate.path === input.path || candidate.previousPath === input.path,
    );
    page = file ? onePathPage(text, file, caps) : { files: [], next: undefined, truncated: false };
  } else {
    page = diffPage(text, parsed.files, start, caps);
  }
  return {
    ...base,
    fromTurnCount: from,
    toTurnCount: range.toTurnCount,
    files: page.files,
    totals: { files: parsed.files.length, additions: parsed.additions, deletions: parsed.deletions },
    truncated: page.truncated,
    complete: note === undefined,
    ...(note === undefined ? {} : { note }),
    ...(page.next === undefined
      ? {}
      : { nextCursor: context.cursors.encode({ v: 1, q: query, k: [page.next] }) }),
  };
}

/** The files a checkpoint records, without patches (T3 cannot diff them any more). */
function summaryOnly(
  base: Pick<ThreadDiffOutput, "environment" | "threadId" | "scope" | "runId">,
  to: number,
  checkpoint: CheckpointInput | undefined,
  note: string,
): ThreadDiffOutput {
  const files = (checkpoint?.files ?? []).flatMap((file): DiffFileOut[] =>
    typeof file.path === "string"
      ? [
          {
            path: file.path,
            status: "modified",
            additions: file.additions ?? 0,
            deletions: file.deletions ?? 0,
            binary: false,
            patch: "",
            truncated: true,
          },
        ]
      : [],
  );
  const summary = checkpoint ? checkpointChangeSummary(checkpoint) : undefined;
  return {
    ...base,
    fromTurnCount: to,
    toTurnCount: to,
    files,
    totals: { files: files.length, additions: summary?.additions ?? 0, deletions: summary?.deletions ?? 0 },
    truncated: files.length > 0,
    complete: false,
    note,
  };
}

function startOf(context: ReadContext, cursor: string, query: string): number {
  const payload = context.cursors.decode(cursor);
  const index = payload.k[0];
  if (payload.q !== query || typeof index !== "number" || !Number.isInteger(index) || index < 0) {
    throw new ConnectorError(
      "invalid_cursor",
      "the cursor belongs to another diff (another thread, run or path, or a newer checkpoint); repeat the call without it",
    );
  }
  return index;
}
