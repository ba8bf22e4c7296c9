import type { SinceChange } from "@t3-connector/core/state";

/** A rename this process saw: the title differed between two of its reads of the environment. */
interface SeenRename {
  threadId: string;
  from: string;
  to: string;
  /** When the read that saw the new title answered (connector clock, ms). */
  seenAtMs: number;
}

/** At most this many renames are kept per environment; older ones fall off first. */
export const MAX_RENAMES_KEPT = 200;

/**
 * T3 stamps no time on a rename (a thread's `updatedAt` moves for any change), so the renames
 * `t3_since` reports are those this server saw itself: the title of each visible thread is kept
 * per environment, and a read that finds another title records a rename, dated by that read.
 * Nothing before the process's first read of an environment is known, and a rename is dated
 * late by up to the gap between two reads. In memory only: a restart forgets them.
 */
export class TitleLog {
  readonly #titles = new Map<string, Map<string, string>>();
  readonly #renames = new Map<string, SeenRename[]>();
  readonly #firstSeenMs = new Map<string, number>();

  /** Records the titles of one read of `environmentId`, answered at `readAtMs`. */
  observe(environmentId: string, threads: Iterable<{ id: string; title: string }>, readAtMs: number): void {
    let titles = this.#titles.get(environmentId);
    if (titles === undefined) {
      titles = new Map();
      this.#titles.set(environmentId, titles);
      this.#firstSeenMs.set(environmentId, readAtMs);
    }
    const renames = this.#renames.get(environmentId) ?? [];
    for (const { id, title } of threads) {
      const before = titles.get(id);
      if (before !== undefined && before !== title) {
        renames.push({ threadId: id, from: before, to: title, seenAtMs: readAtMs });
      }
      titles.set(id, title);
    }
    if (renames.length > MAX_RENAMES_KEPT) renames.splice(0, renames.length - MAX_RENAMES_KEPT);
    this.#renames.set(environmentId, renames);
  }

  /** When this process first read `environmentId` (ms), or undefined: renames are known from then on. */
  watchingSince(environmentId: string): number | undefined {
    return this.#firstSeenMs.get(environmentId);
  }

  /** The renames seen in `environmentId` after `sinceMs` (connector clock), by thread. */
  renamesAfter(environmentId: string, sinceMs: number): Map<string, SinceChange[]> {
    const byThread = new Map<string, SinceChange[]>();
    for (const rename of this.#renames.get(environmentId) ?? []) {
      if (rename.seenAtMs <= sinceMs) continue;
      const list = byThread.get(rename.threadId) ?? [];
      list.push({
        kind: "thread_renamed",
        at: new Date(rename.seenAtMs).toISOString(),
        from: rename.from,
        to: rename.to,
      });
      byThread.set(rename.threadId, list);
    }
    return byThread;
  }
}

const logs = new WeakMap<object, TitleLog>();

/** The title log of one read context (one per server process). */
export function titleLogOf(owner: object): TitleLog {
  let log = logs.get(owner);
  if (log === undefined) {
    log = new TitleLog();
    logs.set(owner, log);
  }
  return log;
}
