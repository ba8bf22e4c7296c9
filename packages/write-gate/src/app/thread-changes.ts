/**
 * @module The one-line change summary of the threads a request or a lease names, for the approval
 * pages (ADR 0068, "On the approval page"): one thread read per thread, with the gate's own token,
 * from that environment's T3 (core `threadChangeSummary`: the latest checkpoint's files and +/−,
 * no diff read). Bounded: at most MAX_THREADS_PER_READ threads a call (given distinct), each read
 * within READ_TIMEOUT_MS, each answer kept CACHE_MS so a page re-reading on every event costs T3
 * little.
 * A read that fails or times out says "changes unknown": it never fails the page or an approval.
 */
import type { Clock } from "@t3-connector/core";
import type { EnvironmentRegistry } from "@t3-connector/core/environments";
import { type FanOutDeadlines, realDeadlines } from "@t3-connector/core/fanout";
import { type ThreadProjectionInput, threadChangeSummary } from "@t3-connector/core/state";
import { fetchThreadWindow } from "@t3-connector/core/t3";

export const MAX_THREADS_PER_READ = 12;
export const READ_TIMEOUT_MS = 5_000;
export const CACHE_MS = 15_000;
/** Entries kept at most (a handful of threads per lease or request in practice). */
const CACHE_LIMIT = 256;

export interface ThreadRef {
  readonly environmentId: string;
  readonly threadId: string;
}

/** `known`: the summary line; `none`: no run left a checkpoint yet; `unknown`: not read. */
export type ChangeState = "known" | "none" | "unknown";

export interface ThreadChangeRow extends ThreadRef {
  readonly state: ChangeState;
  /** What the page shows, as text: "2 files changed, +3 -1", "no changes yet", "changes unknown". */
  readonly line: string;
}

export type ThreadChangeReader = (refs: readonly ThreadRef[]) => Promise<ThreadChangeRow[]>;

export interface ThreadChangeReaderOptions {
  readonly registry: EnvironmentRegistry;
  readonly clock: Clock;
  readonly deadlines?: FanOutDeadlines;
}

const UNKNOWN = "changes unknown";

export function threadChangeReader(options: ThreadChangeReaderOptions): ThreadChangeReader {
  const deadlines = options.deadlines ?? realDeadlines;
  const cache = new Map<string, { readonly at: number; readonly row: Promise<ThreadChangeRow> }>();
  const readOne = async (ref: ThreadRef): Promise<ThreadChangeRow> => {
    // By id only, among the gate's own environments: never a URL or folder from a page.
    const handle = options.registry.environments.find((row) => row.environmentId === ref.environmentId);
    if (handle === undefined) return { ...ref, state: "unknown", line: UNKNOWN };
    const expired = new DOMException(`no thread read within ${READ_TIMEOUT_MS} ms`, "TimeoutError");
    const deadline = deadlines.start(READ_TIMEOUT_MS, expired, { alias: handle.alias });
    try {
      const connected = await handle.connect({ signal: deadline.signal });
      const window = await fetchThreadWindow(connected.http, ref.threadId, { signal: deadline.signal });
      const summary = threadChangeSummary(window.projection as ThreadProjectionInput);
      return summary === null
        ? { ...ref, state: "none", line: "no changes yet" }
        : { ...ref, state: "known", line: summary.line };
    } catch {
      return { ...ref, state: "unknown", line: UNKNOWN };
    } finally {
      deadline.clear();
    }
  };
  const cached = (ref: ThreadRef): Promise<ThreadChangeRow> => {
    const key = `${ref.environmentId}\u0000${ref.threadId}`;
    const now = options.clock.monotonic();
    const hit = cache.get(key);
    if (hit !== undefined && now - hit.at < CACHE_MS) return hit.row;
    const row = readOne(ref);
    // An unknown answer is not kept: the next page read asks again.
    void row.then((answer) => {
      if (answer.state === "unknown" && cache.get(key)?.row === row) cache.delete(key);
    });
    cache.delete(key);
    cache.set(key, { at: now, row });
    if (cache.size > CACHE_LIMIT) {
      const oldest = cache.keys().next();
      if (oldest.done !== true) cache.delete(oldest.value);
    }
    return row;
  };
  return async (refs) =>
    Promise.all(
      refs.map((ref, index) =>
        // Past the bound, nothing is read: the page says so rather than waiting.
        index < MAX_THREADS_PER_READ
          ? cached(ref)
          : Promise.resolve({ ...ref, state: "unknown" as const, line: UNKNOWN }),
      ),
    );
}
