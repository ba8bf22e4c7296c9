/**
 * @module A thread's diff for the person's page (ADR 0068, "The person's diff page"): the thread
 * is named only by environment and thread id, both resolved against T3's own records (the
 * registry, then T3's thread read); the range comes from that thread's checkpoints (core
 * `diffRange`, its latest run with a checkpoint), the diff from T3, parsed once by core, and the
 * first page is cut by the same caps as `t3_diff`. Nothing here takes a path from the request.
 */
import { ConnectorError } from "@t3-connector/core";
import {
  baseRefLost,
  checkpointFiles,
  DIFF_CAPS,
  type DiffFileOut,
  diffPage,
  parseUnifiedDiff,
} from "@t3-connector/core/diff";
import type { EnvironmentRegistry } from "@t3-connector/core/environments";
import { type FanOutDeadlines, realDeadlines } from "@t3-connector/core/fanout";
import {
  checkpointChangeSummary,
  diffableCheckpoints,
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
  readonly runId: string | null;
  readonly changeSummary: string | null;
  readonly files: readonly DiffFileOut[];
  readonly totals: { readonly files: number; readonly additions: number; readonly deletions: number };
  /** A patch was cut or files were left out (the page's caps); the page says so. */
  readonly truncated: boolean;
  readonly note: string | null;
}

export interface ThreadDiffReaderOptions {
  readonly registry: EnvironmentRegistry;
  readonly deadlines?: FanOutDeadlines;
  readonly timeoutMs?: number;
}

export type ThreadDiffReader = (environmentId: string, threadId: string) => Promise<PersonThreadDiff>;

export function threadDiffReader(options: ThreadDiffReaderOptions): ThreadDiffReader {
  const timeoutMs = options.timeoutMs ?? THREAD_DIFF_READ_TIMEOUT_MS;
  const deadlines = options.deadlines ?? realDeadlines;
  return async (environmentId, threadId) => {
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
      const base = {
        environment: {
          alias: handle.alias,
          environmentId: connected.environmentId,
          machine: connected.name ?? handle.alias,
        },
        thread: { id: threadId, title },
        changeSummary: threadChangeSummary(projection)?.line ?? null,
      };
      const range = diffRange(projection, { scope: "run" });
      if (range.kind === "empty") {
        const totals = { files: 0, additions: 0, deletions: 0 };
        return { ...base, runId: range.runId, files: [], totals, truncated: false, note: range.note };
      }
      const rpc = await connected.rpc();
      const served = await rpc
        .getTurnDiff(
          { threadId, fromTurnCount: range.fromTurnCount, toTurnCount: range.toTurnCount },
          { signal },
        )
        .catch((error: unknown) => {
          if (!baseRefLost(error)) throw error;
          return null;
        });
      if (served === null) {
        // T3 lost the state before the first run: its checkpoint still names the files.
        const checkpoint = diffableCheckpoints(projection).get(range.toTurnCount);
        const summary = checkpoint ? checkpointChangeSummary(checkpoint) : undefined;
        const files = checkpointFiles(checkpoint);
        return {
          ...base,
          runId: range.runId,
          files,
          totals: {
            files: files.length,
            additions: summary?.additions ?? 0,
            deletions: summary?.deletions ?? 0,
          },
          truncated: files.length > 0,
          note: "this T3 no longer has the state before this run, so only its files and counts can be shown",
        };
      }
      const parsed = parseUnifiedDiff(served.diff);
      const page = diffPage(served.diff, parsed.files, 0, DIFF_CAPS);
      return {
        ...base,
        runId: range.runId,
        files: page.files,
        totals: { files: parsed.files.length, additions: parsed.additions, deletions: parsed.deletions },
        truncated: page.truncated,
        note: null,
      };
    } finally {
      deadline.clear();
    }
  };
}
