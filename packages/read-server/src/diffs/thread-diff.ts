/**
 * `t3_diff`'s body: the range from T3's records, the diff from T3 (`getTurnDiff` /
 * `getFullThreadDiff`), parsed once, then one page of it. T3 0.0.31 loses the ref before a
 * thread's first run once a second run starts (fixtures 133/134); a thread diff then starts after
 * the first diffable run and says so (`complete: false`, `note`), with that run's counts from its
 * checkpoint.
 */
import { ConnectorError } from "@t3-connector/core";
import {
  baseRefLost,
  checkpointFiles,
  DIFF_CAPS,
  type DiffCaps,
  type DiffFile,
  type DiffFileOut,
  diffPage,
  onePathPage,
  parseUnifiedDiff,
} from "@t3-connector/core/diff";
import { readWithRetry } from "@t3-connector/core/fanout";
import {
  type CheckpointInput,
  checkpointChangeSummary,
  type DiffRange,
  type DiffScope,
  diffableCheckpoints,
  diffRange,
  type ThreadProjectionInput,
} from "@t3-connector/core/state";
import type { TurnDiff } from "@t3-connector/core/t3";
import { locateThread } from "../by-id/locate-thread.js";
import { readLocatedProjection } from "../by-id/thread-detail.js";
import type { ReadContext } from "../read-context.js";
import { environmentDeadline, withDeadline } from "../scope/read-scope.js";

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

type AnswerBase = Pick<ThreadDiffOutput, "environment" | "threadId" | "scope" | "runId">;
type FetchDiff = (from: number, to: number) => Promise<TurnDiff>;
type Range = Extract<DiffRange, { kind: "range" }>;

/** The diff T3 serves for `range`, from the run's own base or, when T3 lost it, after run 1. */
async function fetchWithFallback(
  fetchDiff: FetchDiff,
  range: Range,
  projection: ThreadProjectionInput,
  base: AnswerBase,
): Promise<{ diff: TurnDiff; from: number; note?: string } | ThreadDiffOutput> {
  try {
    return { diff: await fetchDiff(range.fromTurnCount, range.toTurnCount), from: range.fromTurnCount };
  } catch (error) {
    if (!baseRefLost(error)) throw error;
    const first = diffableCheckpoints(projection).get(range.firstTurnCount);
    const firstLine = first ? checkpointChangeSummary(first).line : "unknown";
    if (range.firstTurnCount >= range.toTurnCount) {
      const note = `this T3 no longer has the state before run ${range.toTurnCount}, so no patch can be shown; its checkpoint records ${firstLine}`;
      return summaryOnly(base, range.toTurnCount, first, note);
    }
    const from = range.firstTurnCount;
    const note = `this T3 no longer has the state before the thread's first run, so the diff starts after run ${from} (that run: ${firstLine})`;
    return { diff: await fetchDiff(from, range.toTurnCount), from, note };
  }
}

function pageOf(
  text: string,
  files: readonly DiffFile[],
  input: ThreadDiffInput,
  start: number,
  caps: DiffCaps,
) {
  if (input.path === undefined) return diffPage(text, files, start, caps);
  const file = files.find(
    (candidate) => candidate.path === input.path || candidate.previousPath === input.path,
  );
  return file ? onePathPage(text, file, caps) : { files: [], next: undefined, truncated: false };
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
  const base: AnswerBase = {
    environment: { alias, environmentId: located.environment.environmentId },
    threadId: input.threadId,
    scope,
    runId: range.runId,
  };
  if (range.kind === "empty") {
    const totals = { files: 0, additions: 0, deletions: 0 };
    return {
      ...base,
      fromTurnCount: 0,
      toTurnCount: 0,
      files: [],
      totals,
      truncated: false,
      complete: true,
      note: range.note,
    };
  }
  const handle = context.registry.resolve(alias);
  const ignoreWhitespace = input.ignoreWhitespace ?? false;
  const fetchDiff: FetchDiff = (from, to) =>
    withDeadline(environmentDeadline(context, alias), signal, (deadline) =>
      readWithRetry(
        handle,
        async (connection, readSignal) => {
          const rpc = await connection.rpc();
          const options = { signal: readSignal };
          const threadId = input.threadId;
          return from === 0 && scope === "thread"
            ? rpc.getFullThreadDiff({ threadId, toTurnCount: to, ignoreWhitespace }, options)
            : rpc.getTurnDiff({ threadId, fromTurnCount: from, toTurnCount: to, ignoreWhitespace }, options);
        },
        deadline,
      ).then((read) => read.value),
    );
  const served = await fetchWithFallback(fetchDiff, range, projection, base);
  if (!("diff" in served)) return served;
  const text = served.diff.diff;
  const parsed = parseUnifiedDiff(text);
  const page = pageOf(text, parsed.files, input, start, caps);
  return {
    ...base,
    fromTurnCount: served.from,
    toTurnCount: range.toTurnCount,
    files: page.files,
    totals: { files: parsed.files.length, additions: parsed.additions, deletions: parsed.deletions },
    truncated: page.truncated,
    complete: served.note === undefined,
    ...(served.note === undefined ? {} : { note: served.note }),
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
  const files = checkpointFiles(checkpoint);
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
