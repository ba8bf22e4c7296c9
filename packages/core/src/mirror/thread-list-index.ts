import { isSettled } from "../state/summary.js";
import { isListableThread } from "../state/thread-list.js";
import { type ThreadState, threadState } from "../state/thread-state.js";
import { parseInstant } from "../state/time.js";
import type { ShellThreadInput } from "../state/types.js";
import type { ThreadShell } from "../t3/wire/shell.js";

/** One listable thread as the index holds it: the row and what ordering and filtering read. */
export interface ListedThread {
  readonly thread: ThreadShell;
  readonly id: string;
  readonly projectId: string;
  /** `updatedAt` in epoch ms; null when missing or unparsable (sorts after every dated row). */
  readonly updatedMs: number | null;
  /** The canonical state; it does not depend on the clock, so it is kept. */
  readonly state: ThreadState;
  /** `settledAt` is set (contract: settled), also clock-free. */
  readonly settled: boolean;
  /**
   * The row carries a parsable `snoozedUntil`: only such a row can be snoozed or woke at some
   * instant (both depend on the clock, so they are judged per call, on these rows only).
   */
  readonly snoozes: boolean;
}

/** Which listed threads a page may show. */
export interface ListedThreadFilter {
  /** The environment's ACL: projects a caller may see. */
  allowedProjects: ReadonlySet<string>;
  projectId?: string | undefined;
  state?: ThreadState | undefined;
  /** Without `state`: also threads that never ran. */
  includeNoRun?: boolean | undefined;
}

/**
 * The `t3_threads` order inside one environment: `updatedAt` newest first (undated rows last),
 * then id by UTF-16 code units (the same comparison as the pagination keys, never locale-aware).
 */
export function compareListed(a: ListedThread, b: ListedThread): number {
  if (a.updatedMs !== b.updatedMs) {
    if (a.updatedMs === null) return 1;
    if (b.updatedMs === null) return -1;
    return b.updatedMs - a.updatedMs;
  }
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

export function listedThread(thread: ThreadShell): ListedThread {
  const row = thread as ShellThreadInput;
  return {
    thread,
    id: thread.id,
    projectId: thread.projectId,
    updatedMs: parseInstant(thread.updatedAt),
    state: threadState(row).state,
    settled: isSettled(row),
    snoozes: parseInstant(thread.snoozedUntil) !== null,
  };
}

/** Whether `entry` passes `filter` (the ACL included). */
export function matchesListedFilter(entry: ListedThread, filter: ListedThreadFilter): boolean {
  if (!filter.allowedProjects.has(entry.projectId)) return false;
  if (filter.projectId !== undefined && entry.projectId !== filter.projectId) return false;
  if (filter.state !== undefined) return entry.state === filter.state;
  return entry.state !== "no_run" || filter.includeNoRun === true;
}

/**
 * The listable threads of one shell (active, neither archived nor deleted) kept in listing order,
 * with counts per project and state, so that a page costs the page plus a binary search instead
 * of a pass over every row. A live mirror updates it per stream item (`upsert`, `remove`); an HTTP
 * shell builds one once (`ThreadListIndex.of`). Reading it and applying an update must not
 * interleave with an `await`: a page is taken synchronously.
 *
 * Cost: an update is a binary search plus one array splice (a memmove of pointers), a count is
 * O(projects), a page is O(log n + rows skipped by the filter + page).
 */
export class ThreadListIndex {
  readonly #ordered: ListedThread[] = [];
  /** The same entries split by state, each list in the same order. */
  readonly #byState = new Map<ThreadState, ListedThread[]>();
  /** Entries that carry a snooze time, in the same order. */
  readonly #snoozing: ListedThread[] = [];
  readonly #byId = new Map<string, ListedThread>();
  /** projectId → state → count, listable threads only. */
  readonly #counts = new Map<string, Map<ThreadState, number>>();

  /** The index of `threads` (rows that are not listable are left out). */
  static of(threads: Iterable<ThreadShell>): ThreadListIndex {
    const index = new ThreadListIndex();
    for (const thread of threads) {
      if (!isListableThread(thread as ShellThreadInput) || index.#byId.has(thread.id)) continue;
      const entry = listedThread(thread);
      index.#ordered.push(entry);
      index.#byId.set(entry.id, entry);
      index.#count(entry, 1);
    }
    index.#ordered.sort(compareListed);
    for (const entry of index.#ordered) {
      index.#stateList(entry.state).push(entry);
      if (entry.snoozes) index.#snoozing.push(entry);
    }
    return index;
  }

  get size(): number {
    return this.#ordered.length;
  }

  /** Every entry in order. Shared, do not mutate (tests and full passes). */
  entries(): readonly ListedThread[] {
    return this.#ordered;
  }

  /** The row now held for `thread.id` replaced by `thread` (dropped when it is no longer listable). */
  upsert(thread: ThreadShell): void {
    this.remove(thread.id);
    if (!isListableThread(thread as ShellThreadInput)) return;
    const entry = listedThread(thread);
    insertOrdered(this.#ordered, entry);
    insertOrdered(this.#stateList(entry.state), entry);
    if (entry.snoozes) insertOrdered(this.#snoozing, entry);
    this.#byId.set(entry.id, entry);
    this.#count(entry, 1);
  }

  remove(threadId: string): void {
    const held = this.#byId.get(threadId);
    if (held === undefined) return;
    removeOrdered(this.#ordered, held);
    removeOrdered(this.#stateList(held.state), held);
    if (held.snoozes) removeOrdered(this.#snoozing, held);
    this.#byId.delete(threadId);
    this.#count(held, -1);
  }

  /** How many entries pass `filter`, and how many were left out only for having no run. O(projects). */
  count(filter: ListedThreadFilter): { matching: number; hiddenNoRun: number } {
    let matching = 0;
    let hiddenNoRun = 0;
    for (const [state, count] of this.countByState(filter)) {
      if (filter.state !== undefined) {
        if (state === filter.state) matching += count;
      } else if (state === "no_run" && filter.includeNoRun !== true) {
        hiddenNoRun += count;
      } else {
        matching += count;
      }
    }
    return { matching, hiddenNoRun };
  }

  /** Entries in the filter's projects (its `state` and `includeNoRun` ignored), counted per state. O(projects). */
  countByState(filter: Pick<ListedThreadFilter, "allowedProjects" | "projectId">): Map<ThreadState, number> {
    const counts = new Map<ThreadState, number>();
    for (const [projectId, byState] of this.#counts) {
      if (!filter.allowedProjects.has(projectId)) continue;
      if (filter.projectId !== undefined && projectId !== filter.projectId) continue;
      for (const [state, count] of byState) counts.set(state, (counts.get(state) ?? 0) + count);
    }
    return counts;
  }

  /** Entries in `state` passing `filter`, in order, visiting that state's entries only. */
  inState(state: ThreadState, filter: Omit<ListedThreadFilter, "state">): Generator<ListedThread> {
    return walkList(this.#byState.get(state) ?? [], { ...filter, state });
  }

  /** Entries carrying a snooze time passing `filter`, in order (the only rows a clock can wake). */
  snoozing(filter: ListedThreadFilter): Generator<ListedThread> {
    return walkList(this.#snoozing, filter);
  }

  /**
   * Entries passing `filter`, in order, starting at the first position where `isAfter` holds (it
   * must be monotonic over the order: false…false true…true). Lazy: the caller stops pulling
   * once it holds enough.
   */
  walk(filter: ListedThreadFilter, isAfter?: (entry: ListedThread) => boolean): Generator<ListedThread> {
    // With a state filter only that state's entries are visited.
    const list = filter.state === undefined ? this.#ordered : (this.#byState.get(filter.state) ?? []);
    return walkList(list, filter, isAfter);
  }

  #stateList(state: ThreadState): ListedThread[] {
    let list = this.#byState.get(state);
    if (list === undefined) {
      list = [];
      this.#byState.set(state, list);
    }
    return list;
  }

  #count(entry: ListedThread, delta: 1 | -1): void {
    let byState = this.#counts.get(entry.projectId);
    if (byState === undefined) {
      byState = new Map();
      this.#counts.set(entry.projectId, byState);
    }
    const next = (byState.get(entry.state) ?? 0) + delta;
    if (next === 0) byState.delete(entry.state);
    else byState.set(entry.state, next);
    if (byState.size === 0) this.#counts.delete(entry.projectId);
  }
}

function* walkList(
  list: readonly ListedThread[],
  filter: ListedThreadFilter,
  isAfter?: (entry: ListedThread) => boolean,
): Generator<ListedThread> {
  const start = isAfter === undefined ? 0 : firstWhere(list, isAfter);
  for (let at = start; at < list.length; at++) {
    const entry = list[at] as ListedThread;
    if (matchesListedFilter(entry, filter)) yield entry;
  }
}

/** Binary search: the first position whose entry satisfies the monotonic `predicate`. */
function firstWhere(list: readonly ListedThread[], predicate: (entry: ListedThread) => boolean): number {
  let low = 0;
  let high = list.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (predicate(list[middle] as ListedThread)) high = middle;
    else low = middle + 1;
  }
  return low;
}

function insertOrdered(list: ListedThread[], entry: ListedThread): void {
  list.splice(
    firstWhere(list, (held) => compareListed(held, entry) > 0),
    0,
    entry,
  );
}

function removeOrdered(list: ListedThread[], entry: ListedThread): void {
  // An entry compares equal only to itself (ids are unique), so this is its position.
  const at = firstWhere(list, (held) => compareListed(held, entry) >= 0);
  if (list[at] === entry) list.splice(at, 1);
}
