import type { PageOrder } from "@t3-connector/core/pagination";
import { parseInstant } from "@t3-connector/core/state";
import type { ThreadItem } from "./shells.js";

/**
 * `t3_threads`' page order: `updatedAt` newest first, then environmentId, then threadId (total,
 * because a threadId is unique within its environment). A row without a parsable `updatedAt`
 * sorts after every dated row. The version stamp is `updatedAt`, so a thread that moved during a
 * traversal is counted in `changedSinceStart` instead of appearing twice.
 */
export const THREAD_LISTING_ORDER: PageOrder<ThreadItem> = {
  key: (item) => [parseInstant(item.updatedAt), item.environment.environmentId, item.threadId ?? ""],
  directions: ["desc", "asc", "asc"],
  version: (item) => parseInstant(item.updatedAt),
};

/** `t3_buscar_threads`' order: by environmentId, then threadId, whatever answered first. */
export const THREAD_SEARCH_ORDER: PageOrder<ThreadItem> = {
  key: (item) => [item.environment.environmentId, item.threadId ?? ""],
  directions: ["asc", "asc"],
};
