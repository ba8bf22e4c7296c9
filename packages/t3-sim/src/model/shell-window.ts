/**
 * The pieces current upstream puts between committed events and the shell streams
 * (`apps/server/src/orchestration-v2/ShellStream.ts` and the `subscribeShell` handler beside it):
 * a 50 ms window that keeps the newest event per aggregate, the filter that holds back a thread
 * row whose only change is `updatedAt` for up to 5 s, and the per-subscription dedupe of repeated
 * metadata (enrichment) snapshots. Timing runs on the SimClock.
 */
import type { SimClock, SimTimer } from "../clock.js";

/** Live shell updates are grouped over this window (upstream `groupedWithin(512, 50 ms)`). */
export const SHELL_COALESCE_MS = 50;
/** An unchanged thread row may go unsent this long (`UNCHANGED_THREAD_SHELL_RESEND_MS`). */
export const UNCHANGED_THREAD_SHELL_RESEND_MS = 5_000;
/** A shell resume further behind than this answers a full snapshot (`SHELL_RESUME_MAX_GAP`). */
export const SHELL_RESUME_MAX_GAP = 1_000;

/**
 * Collects keyed entries and hands the newest one per key to `flush`, in the order of their
 * sequences, once per window. With coalescing off every `add` flushes at once (one item per
 * commit, nothing held back), for tests that need every update.
 */
export class CoalescingWindow<T extends { readonly sequence: number }> {
  readonly #pending = new Map<string, T>();
  #timer: SimTimer | undefined;
  #closed = false;

  constructor(
    private readonly clock: SimClock,
    private readonly coalesce: boolean,
    private readonly flush: (entries: T[]) => void,
  ) {}

  add(key: string, entry: T): void {
    if (this.#closed) return;
    this.#pending.delete(key);
    this.#pending.set(key, entry);
    if (!this.coalesce) {
      this.#drain();
      return;
    }
    this.#timer ??= this.clock.setTimer(SHELL_COALESCE_MS, () => {
      this.#timer = undefined;
      this.#drain();
    });
  }

  close(): void {
    this.#closed = true;
    this.#timer?.cancel();
    this.#timer = undefined;
    this.#pending.clear();
  }

  #drain(): void {
    if (this.#closed || this.#pending.size === 0) return;
    const entries = [...this.#pending.values()].sort((a, b) => a.sequence - b.sequence);
    this.#pending.clear();
    this.flush(entries);
  }
}

type ShellItem = Record<string, unknown> & { kind: string };

/**
 * Drops a live `thread.updated` whose row equals the last one this subscription sent apart from
 * `updatedAt`, unless that send is 5 s old. Rows known only from a snapshot are always sent.
 */
export class UnchangedThreadFilter {
  readonly #lastSent = new Map<string, { row: Record<string, unknown>; sentAt: number }>();

  constructor(
    private readonly clock: SimClock,
    private readonly enabled: boolean,
  ) {}

  keep(item: ShellItem): boolean {
    if (item.kind === "thread.removed") {
      this.#lastSent.delete(item.threadId as string);
      return true;
    }
    if (item.kind !== "thread.updated" || !this.enabled) return true;
    const row = item.thread as Record<string, unknown>;
    const id = row.id as string;
    const now = this.clock.now();
    const previous = this.#lastSent.get(id);
    if (
      previous !== undefined &&
      now - previous.sentAt < UNCHANGED_THREAD_SHELL_RESEND_MS &&
      JSON.stringify({ ...row, updatedAt: previous.row.updatedAt }) === JSON.stringify(previous.row)
    )
      return false;
    this.#lastSent.set(id, { row, sentAt: now });
    return true;
  }
}

/**
 * Drops a metadata-only snapshot (marked with `resolvedRepositoryIdentityRoots`, no threads) that
 * repeats the previous one's roots and projects, unless a project delta or a full snapshot came
 * in between (upstream `dedupeShellEnrichment`).
 */
export class EnrichmentDedupe {
  #previous: { roots: Set<string>; projects: string } | undefined;

  keep(item: ShellItem): boolean {
    if (item.kind !== "snapshot") {
      if (item.kind === "project.updated" || item.kind === "project.removed") this.#previous = undefined;
      return true;
    }
    const snapshot = item.snapshot as { threads: unknown[]; archivedThreads: unknown[]; projects: unknown[] };
    const roots = item.resolvedRepositoryIdentityRoots as string[] | undefined;
    if (roots === undefined || snapshot.threads.length > 0 || snapshot.archivedThreads.length > 0) {
      this.#previous = undefined;
      return true;
    }
    const rootSet = new Set(roots);
    const projects = JSON.stringify(snapshot.projects);
    const prior = this.#previous;
    if (
      prior !== undefined &&
      prior.roots.size === rootSet.size &&
      [...rootSet].every((root) => prior.roots.has(root)) &&
      prior.projects === projects
    )
      return false;
    this.#previous = { roots: rootSet, projects };
    return true;
  }
}
