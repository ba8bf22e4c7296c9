import type { ListedThread, ListedThreadFilter } from "@t3-connector/core/mirror";
import { type CursorPayload, compareKeys, type PresortedShare } from "@t3-connector/core/pagination";
import { THREAD_LISTING_ORDER } from "../read-contracts/index.js";
import { projectsById, type ShellView, type ThreadItem, threadIndexOf, threadItem } from "./shell-view.js";

/**
 * One environment's share of a `t3_threads` page taken from its ordered thread index: the counts
 * from the index's counters, and only the candidates the page can need (at most `limit + 1` after
 * the cursor), each summarized. So a page costs what it shows plus a binary search, whatever the
 * environment holds. It is what `paginate` would compute from this environment's matches (the
 * pagination tests compare both); filters the index cannot answer (search, woke) take the full path.
 * Runs synchronously inside the environment's projection, so a live index cannot move under it.
 */
export function threadPageShare(
  view: ShellView,
  filter: ListedThreadFilter,
  cursor: Pick<CursorPayload, "k" | "c"> | undefined,
  limit: number,
  now: number,
): PresortedShare<ThreadItem> & { hiddenNoRun: number } {
  const index = threadIndexOf(view);
  const { matching, hiddenNoRun } = index.count(filter);
  const projects = projectsById(view);
  const item = (entry: ListedThread) =>
    threadItem(view.environment, entry.thread, now, projects.get(entry.projectId));
  const environmentId = view.environment.environmentId;
  const keyOf = (entry: ListedThread) => [entry.updatedMs, environmentId, entry.id] as const;
  const { directions } = THREAD_LISTING_ORDER;
  const candidates: ThreadItem[] = [];

  if (cursor === undefined) {
    let highestVersion: number | null | undefined;
    for (const entry of index.walk(filter)) {
      // Entries come newest first: the first match holds the highest version.
      if (candidates.length === 0) highestVersion = entry.updatedMs;
      candidates.push(item(entry));
      if (candidates.length > limit) break;
    }
    return { total: matching, hiddenNoRun, candidates, changedSinceStart: 0, highestVersion };
  }

  const cut = cursor.c;
  const moved = (entry: ListedThread) =>
    typeof cut === "number" && entry.updatedMs !== null && entry.updatedMs > cut;
  let changedSinceStart = 0;
  if (typeof cut === "number") {
    // Moved entries are exactly the dated ones newer than the cut: a prefix of the order.
    for (const entry of index.walk(filter)) {
      if (!moved(entry)) break;
      changedSinceStart += 1;
    }
  }
  const after = (entry: ListedThread) => compareKeys(keyOf(entry), cursor.k, directions) > 0;
  for (const entry of index.walk(filter, after)) {
    if (moved(entry)) continue;
    candidates.push(item(entry));
    if (candidates.length > limit) break;
  }
  return { total: matching, hiddenNoRun, candidates, changedSinceStart };
}
