import type { PageOrder } from "@t3-connector/core/pagination";
import { normalizeSearchText } from "@t3-connector/core/search";
import { parseInstant } from "@t3-connector/core/state";

/** What the thread orders read of a listed thread. */
interface OrderedThread {
  readonly threadId: string | null;
  readonly updatedAt: string | null;
  readonly environment: { readonly environmentId: string };
}

/**
 * `t3_threads`' page order: `updatedAt` newest first, then environmentId, then threadId (total,
 * because a threadId is unique within its environment). A row without a parsable `updatedAt`
 * sorts after every dated row. The version stamp is `updatedAt`, so a thread that moved during a
 * traversal is counted in `changedSinceStart` instead of appearing twice.
 */
export const THREAD_LISTING_ORDER: PageOrder<OrderedThread> = {
  key: (item) => [parseInstant(item.updatedAt), item.environment.environmentId, item.threadId ?? ""],
  directions: ["desc", "asc", "asc"],
  version: (item) => parseInstant(item.updatedAt),
};

/** `t3_buscar_threads`' order: by environmentId, then threadId, whatever answered first. */
export const THREAD_SEARCH_ORDER: PageOrder<OrderedThread> = {
  key: (item) => [item.environment.environmentId, item.threadId ?? ""],
  directions: ["asc", "asc"],
};

/** `t3_projetos`' order: by normalised title, then environmentId, then projectId (unique within an environment). */
export const PROJECT_ORDER: PageOrder<{
  readonly title: string;
  readonly projectId: string;
  readonly environment: { readonly environmentId: string };
}> = {
  key: (item) => [normalizeSearchText(item.title), item.environment.environmentId, item.projectId],
  directions: ["asc", "asc", "asc"],
};

/** `t3_threads`' `note` beside `hiddenNoRun`: a person asking for "my threads" must learn some were left out. */
export function hiddenNoRunNote(hidden: number): string {
  const threads = hidden === 1 ? "1 thread that never ran is" : `${hidden} threads that never ran are`;
  return `${threads} not listed; call again with includeNoRun: true to list them too.`;
}
