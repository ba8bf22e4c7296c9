/**
 * @module A thread's diff for the person's page (ADR 0068, "The person's diff page"): the thread
 * is named only by environment and thread id, both resolved against T3's own records (the
 * registry, then T3's thread read); the range comes from that thread's checkpoints (core
 * `diffRange`: its latest run with a checkpoint, or the whole thread), the diff from T3 (core
 * `fetchRangeDiff`, with its fallback where T3 lost a first run's base), parsed once by core, and
 * paged by file with the same caps as `t3_diff`. A cursor names a page of one range: when the
 * thread has a newer checkpoint it is refused, and the page opens the diff again. Nothing here
 * takes a path from the request.
 */
import { ConnectorError } from "@t3-connector/core";
import {
  DIFF_CAPS,
  type DiffFileOut,
  diffPage,
  type FetchRangeDiff,
  fetchRangeDiff,
  parseUnifiedDiff,
} from "@t3-connector/core/diff";
import type { EnvironmentRegistry } from "@t3-connector/core/environments";
import { type FanOutDeadlines, realDeadlines } from "@t3-connector/core/fanout";
import {
  type DiffRange,
  type DiffScope,
  diffRange,
  type ThreadProjectionInput,
  threadChangeSummary,
} from "@t3-connector/core/state";
import { fetchThreadWindow } from "@t3-connector/core/t3";

/** The whole read (thread, then diff) gets this long. */
export const THREAD_DIFF_READ_TIMEOUT_MS = 20_000;

export interface PersonThreadDiff {
  readonly environment: { readonly alias: string; readonly environmentId: string; readonly machine: string };
  readonly thread: { readonly id: string; readonly title: string | null };
  readonly scope: DiffScope;
  readonly runId: string | null;
  readonly changeSummary: string | null;
  readonly files: readonly DiffFileOut[];
  readonly totals: { readonly files: number; readonly additions: number; readonly deletions: number };
  /** A patch was cut or files are left for the next page; the page says so. */
  readonly truncated: boolean;
  readonly note: string | null;
  /** The next page's cursor (`scope:from-to:index`), when files are left. */
  readonly nextCursor?: string;
}

export interface ThreadDiffReaderOptions {
  readonly registry: EnvironmentRegistry;
  readonly deadlines?: FanOutDeadlines;
  readonly timeoutMs?: number;
}

export interface ThreadDiffAsk {
  readonly scope?: DiffScope;
  readonly cursor?: string;
}

export type ThreadDiffReader = (
  environmentId: string,
  threadId: string,
  ask?: ThreadDiffAsk,
) => Promise<PersonThreadDiff>;

/** The page's cursors: the range they page, and where the next page starts. */
export const DIFF_CURSOR = /^(run|thread):(\d{1,9})-(\d{1,9}):(\d{1,9})$/;

function cursorOf(scope: DiffScope, range: Extract<DiffRange, { kind: "range" }>, next: number): string {
  return `${scope}:${range.fromTurnCount}-${range.toTurnCount}:${next}`;
}

/** The first file of the page a cursor names; refused when it pages another scope or range. */
function startOf(cursor: string | undefined, scope: DiffScope, range: DiffRange): number {
  if (cursor === undefined) return 0;
  const match = DIFF_CURSOR.exec(cursor);
  const same =
    match !== null &&
    range.kind === "range" &&
    match[1] === scope &&
    Number(match[2]) === range.fromTurnCount &&
    Number(match[3]) === range.toTurnCount;
  if (!same) {
    throw new ConnectorError(
      "invalid_cursor",
      "the thread has a newer checkpoint, or the cursor pages another diff: open the diff again",
    );
  }
  return Number(match[4]);
}

export function threadDiffReader(options: ThreadDiffReaderOptions): ThreadDiffReader {
  const timeoutMs = options.timeoutMs ?? THREAD_DIFF_READ_TIMEOUT_MS;
  const deadlines = options.deadlines ?? realDeadlines;
  return async (environmentId, threadId, ask = {}) => {
    const scope = ask.scope ?? "run";
    // By environmentId only: an alias is the gate's name for it, the inbox item carries the id.
    const handle = options.registry.environments.find((row) => row.environmentId === environmentId);
    if (handle === undefined) {
      throw new ConnectorError("environment_unknown", "no environment of this gate has that id");
    }
    const expired = new DOMException(`no diff read within ${timeoutMs} ms`, "TimeoutError");
    const deadline = deadlines.start(timeoutMs, expired, { alias: handle.alias });
    const signal = deadline.signal;
    try {
      const connected = await handle.connect({ signal });
      const window = await fetchThreadWindow(connected.http, threadId, { signal });
      const projection = window.projection as ThreadProjectionInput & { thread?: { title?: unknown } };
      const title = typeof projection.thread?.title === "string" ? projection.thread.title : null;
      const range = diffRange(projection, { scope });
      const start = startOf(ask.cursor, scope, range);
      const base = {
        environment: {
          alias: handle.alias,
          environmentId: connected.environmentId,
          machine: connected.name ?? handle.alias,
        },
        thread: { id: threadId, title },
        scope,
        runId: range.runId,
        changeSummary: threadChangeSummary(projection)?.line ?? null,
      };
      if (range.kind === "empty") {
        const totals = { files: 0, additions: 0, deletions: 0 };
        return { ...base, files: [], totals, truncated: false, note: range.note };
      }
      const rpc = await connected.rpc();
      // Whitespace counted, as `t3_diff` asks: the patch then agrees with the checkpoint's counts.
      const ignoreWhitespace = false;
      const fetchDiff: FetchRangeDiff = (from, to) =>
        from === 0 && scope === "thread"
          ? rpc.getFullThreadDiff({ threadId, toTurnCount: to, ignoreWhitespace }, { signal })
          : rpc.getTurnDiff({ threadId, fromTurnCount: from, toTurnCount: to, ignoreWhitespace }, { signal });
      const served = await fetchRangeDiff(fetchDiff, range, projection);
      if (served.kind === "checkpoint") {
        // T3 lost the state before the first run: its checkpoint still names the files.
        const { files, totals, note } = served;
        return { ...base, files, totals, truncated: files.length > 0, note };
      }
      const parsed = parseUnifiedDiff(served.text);
      const page = diffPage(served.text, parsed.files, start, DIFF_CAPS);
      return {
        ...base,
        files: page.files,
        totals: { files: parsed.files.length, additions: parsed.additions, deletions: parsed.deletions },
        truncated: page.truncated,
        note: served.note ?? null,
        ...(page.next === undefined ? {} : { nextCursor: cursorOf(scope, range, page.next) }),
      };
    } finally {
      deadline.clear();
    }
  };
}
