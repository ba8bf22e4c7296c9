import { ConnectorError } from "../errors.js";
import type { ThreadState } from "./thread-state.js";
import type { ShellThreadInput } from "./types.js";

/**
 * A row listings may show: neither deleted nor archived. (Reads by ID also accept archived rows;
 * the per-environment project ACL is applied by the caller.)
 */
export function isListableThread(thread: ShellThreadInput): boolean {
  return !thread.deletedAt && !thread.archivedAt;
}

/** What the `t3_threads` filters read from a summary. */
export interface FilterableThread {
  threadId: string | null;
  state: ThreadState;
  woke: boolean | null;
}

export interface ThreadListFilter {
  state?: ThreadState;
  includeNoRun?: boolean;
  woke?: boolean;
}

export interface FilteredThreads<T> {
  threads: T[];
  /** Threads hidden only because they have no run (no `state` filter, `includeNoRun` false). */
  hiddenNoRun: number;
}

/**
 * The `state` / `includeNoRun` / `woke` filters of `t3_threads`, applied before
 * paging. When `woke` is asked for and any thread passing the state filter cannot be decided
 * (`woke: null`), the call is refused: a filtered list that silently dropped those threads would
 * look complete when it is not. During a sweep the caller records that refusal as a `refused`
 * failure of the environment.
 */
export function filterThreadList<T extends FilterableThread>(
  threads: readonly T[],
  filter: ThreadListFilter,
): FilteredThreads<T> {
  let hiddenNoRun = 0;
  const byState = threads.filter((thread) => {
    if (filter.state !== undefined) return thread.state === filter.state;
    if (thread.state === "no_run" && filter.includeNoRun !== true) {
      hiddenNoRun += 1;
      return false;
    }
    return true;
  });
  if (filter.woke === undefined) return { threads: byState, hiddenNoRun };

  const undecided = byState.filter((thread) => thread.woke === null);
  if (undecided.length > 0) {
    throw new ConnectorError(
      "invalid_input",
      `The woke filter cannot be decided for ${undecided.length} thread(s): this T3 server does not send the snooze or visited fields. Repeat without "woke".`,
      { details: { undecidedThreadIds: undecided.map((thread) => thread.threadId) } },
    );
  }
  return { threads: byState.filter((thread) => thread.woke === filter.woke), hiddenNoRun };
}
