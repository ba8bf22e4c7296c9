import { parseInstant } from "./time.js";

/** The environment an item belongs to, as every swept item carries it. */
export interface EnvironmentRef {
  alias: string;
  environmentId: string;
  name?: string | null;
}

/** What the listing order reads from an item. */
export interface OrderedThread {
  threadId: string | null;
  updatedAt: string | null;
  environment?: EnvironmentRef;
}

function compareText(a: string, b: string): number {
  // Code-unit order, not locale order: the key must be total and the same on every machine.
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The listing order of `t3_threads`, `t3_atencao` and `t3_control_plane`: `updatedAt` newest
 * first, then `environmentId`, then `threadId`. A row whose `updatedAt` cannot be parsed sorts
 * after every dated row (it cannot be placed in time).
 */
export function compareThreadsForListing(a: OrderedThread, b: OrderedThread): number {
  const left = parseInstant(a.updatedAt) ?? Number.NEGATIVE_INFINITY;
  const right = parseInstant(b.updatedAt) ?? Number.NEGATIVE_INFINITY;
  if (left !== right) return right > left ? 1 : -1;
  return (
    compareText(a.environment?.environmentId ?? "", b.environment?.environmentId ?? "") ||
    compareText(a.threadId ?? "", b.threadId ?? "")
  );
}

export interface LimitedList<T> {
  total: number;
  returned: number;
  truncated: boolean;
  threads: T[];
}

/** Order a list and cut it at `limit`, saying how much was left out. */
export function limitedList<T extends OrderedThread>(items: readonly T[], limit: number): LimitedList<T> {
  const ordered = [...items].sort(compareThreadsForListing);
  const threads = ordered.slice(0, Math.max(0, limit));
  return {
    total: ordered.length,
    returned: threads.length,
    truncated: threads.length < ordered.length,
    threads,
  };
}
