import { compareThreadsForListing, type OrderedThread } from "./ordering.js";
import type { ThreadState } from "./thread-state.js";

/** What the attention rule reads from a summary. */
export interface AttentionCandidate extends OrderedThread {
  state: ThreadState;
  settled: boolean;
}

/**
 * A thread needs the user when it needs intervention, or when its latest run failed
 * and nobody settled it. Settling does not hide an intervention: a settled thread that raised a
 * request is still listed.
 */
export function needsAttention(thread: Pick<AttentionCandidate, "state" | "settled">): boolean {
  return thread.state === "needs_intervention" || (thread.state === "failed" && !thread.settled);
}

/** The `t3_atencao` list, in the listing order. */
export function attentionThreads<T extends AttentionCandidate>(threads: readonly T[]): T[] {
  return threads.filter(needsAttention).sort(compareThreadsForListing);
}
