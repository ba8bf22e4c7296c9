/**
 * `t3_diff`'s body: the range from T3's records, the diff from T3 (`getTurnDiff` /
 * `getFullThreadDiff`, with core's fallback where T3 lost a thread's first base: `complete: false`
 * and a `note`), parsed once, then one page of it.
 */
import { ConnectorError } from "@t3-connector/core";
import {
  DIFF_CAPS,
  type DiffCaps,
  type DiffFile,
  type DiffFileOut,
  diffPage,
  type FetchRangeDiff,
  fetchRangeDiff,
  onePathPage,
  parseUnifiedDiff,
} from "@t3-connector/core/diff";
import { readWithRetry } from "@t3-connector/core/fanout";
import {
  type DiffRange,
  type DiffScope,
  diffRange,
  type ThreadProjectionInput,
} from "@t3-connector/core/state";
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
  const fetchDiff: FetchRangeDiff = (from, to) =>
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
  const served = await fetchRangeDiff(fetchDiff, range, projection);
  if (served.kind === "checkpoint") {
    // T3 cannot diff this run any more: its checkpoint still names the files and counts.
    const { to, files, totals, note } = served;
    const truncated = files.length > 0;
    return { ...base, fromTurnCount: to, toTurnCount: to, files, totals, truncated, complete: false, note };
  }
  const text = served.text;
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
