/**
 * Change summaries for threads a listing shows (`t3_control_plane`, `t3_since`). The shell has no
 * checkpoint, so a summary costs one projection read; it changes only when a run ends, so each is
 * kept per thread and run version (`version`: what the row says of its newest run) and read again
 * only when that moves. A call reads at most `MAX_FRESH_READS` new ones, four at a time, each
 * under its environment's deadline; a thread whose summary was not read (budget, failure) gets
 * none, never a guess: its absence means "not known here, read t3_thread or t3_diff".
 */
import { readWithRetry } from "@t3-connector/core/fanout";
import {
  type ChangeSummary,
  type ThreadProjectionInput,
  threadChangeSummary,
} from "@t3-connector/core/state";
import { fetchThreadProjection } from "../by-id/thread-projection.js";
import type { ReadContext } from "../read-context.js";
import { environmentDeadline, withDeadline } from "../scope/read-scope.js";

export interface WantedSummary {
  readonly alias: string;
  readonly threadId: string;
  /** Changes when the thread's diffable state may have changed (its newest run's id, status, end). */
  readonly version: string;
}

const MAX_FRESH_READS = 20;
const CONCURRENCY = 4;
const MAX_KEPT = 4096;

const kept = new WeakMap<ReadContext, Map<string, ChangeSummary | null>>();

const keyOf = (wanted: WantedSummary) => `${wanted.alias}\u0000${wanted.threadId}\u0000${wanted.version}`;
export const summaryKey = (alias: string, threadId: string) => `${alias}\u0000${threadId}`;

function remember(cache: Map<string, ChangeSummary | null>, key: string, value: ChangeSummary | null): void {
  cache.delete(key);
  cache.set(key, value);
  if (cache.size > MAX_KEPT) cache.delete(cache.keys().next().value as string);
}

/** The summaries known for `wanted`, by `summaryKey(alias, threadId)`; absent ones were not read. */
export async function listedChangeSummaries(
  context: ReadContext,
  wanted: readonly WantedSummary[],
  signal: AbortSignal,
): Promise<Map<string, ChangeSummary | null>> {
  let cache = kept.get(context);
  if (!cache) {
    cache = new Map();
    kept.set(context, cache);
  }
  const known = new Map<string, ChangeSummary | null>();
  const fresh: WantedSummary[] = [];
  for (const item of wanted) {
    const hit = cache.get(keyOf(item));
    if (hit !== undefined) known.set(summaryKey(item.alias, item.threadId), hit);
    else if (fresh.length < MAX_FRESH_READS) fresh.push(item);
  }
  const store = cache;
  const readOne = async (item: WantedSummary): Promise<void> => {
    try {
      const handle = context.registry.resolve(item.alias);
      const { value } = await withDeadline(environmentDeadline(context, item.alias), signal, (deadline) =>
        readWithRetry(
          handle,
          (connection, readSignal) => fetchThreadProjection(connection, item.threadId, readSignal),
          deadline,
        ),
      );
      const summary = threadChangeSummary(value.projection as ThreadProjectionInput);
      remember(store, keyOf(item), summary);
      known.set(summaryKey(item.alias, item.threadId), summary);
    } catch {
      // Not known this time: the listing answers without it (see the header).
    }
  };
  const queue = [...fresh];
  await Promise.all(
    Array.from({ length: Math.min(CONCURRENCY, queue.length) }, async () => {
      for (let next = queue.shift(); next !== undefined; next = queue.shift()) await readOne(next);
    }),
  );
  return known;
}
