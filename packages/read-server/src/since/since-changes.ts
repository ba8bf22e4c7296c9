import { createHash } from "node:crypto";
import {
  rowChangesSince,
  rowHighWaterMs,
  type SinceBoundary,
  type SinceChange,
  type SinceRowInput,
} from "@t3-connector/core/state";
import {
  projectsById,
  type ShellView,
  searchableThreads,
  type ThreadItem,
  threadItem,
} from "@t3-connector/mcp-tools/read-answers";
import { type EnvironmentMark, MAX_SEEN_PER_ENVIRONMENT, type SincePosition } from "./since-cursor.js";
import type { TitleLog } from "./title-log.js";

/**
 * A cursor's next call looks this far back before its mark. A row can reach the server after a
 * newer one of the same machine (T3 coalesces shell rows; a mirror catches up after a dropped
 * socket), so a strict "after the mark" would skip a change dated just before it for good; the
 * changes reported in the overlap are remembered in the cursor and not reported twice.
 */
export const SINCE_OVERLAP_MS = 5_000;

/** Where a call starts: a time the caller gave (inclusive), or the marks of its cursor. */
export type SinceStart = { kind: "time"; ms: number } | { kind: "cursor"; position: SincePosition };

/** One thread that changed, with its changes oldest first. */
export interface ChangedThread {
  item: ThreadItem;
  changes: SinceChange[];
  newestMs: number;
}

/** One environment's part of the answer. */
export interface EnvironmentSince {
  threads: ChangedThread[];
  /** The next cursor's mark for this environment. */
  mark: EnvironmentMark;
}

function previousMark(start: SinceStart, environmentId: string): EnvironmentMark | undefined {
  return start.kind === "cursor" ? start.position.marks.get(environmentId) : undefined;
}

/** The boundary of the shell's own timestamps in one environment. */
export function boundaryOf(start: SinceStart, environmentId: string): SinceBoundary {
  if (start.kind === "time") return { ms: start.ms, inclusive: true };
  const mark = previousMark(start, environmentId);
  if (mark === undefined) return { ms: start.position.generatedAtMs, inclusive: false };
  return { ms: mark.ms - SINCE_OVERLAP_MS, inclusive: false };
}

/** The boundary of the renames this server saw (its own clock). */
function renameSinceMs(start: SinceStart): number {
  // A time the caller gave is inclusive; renames are compared with `>`, hence the millisecond.
  return start.kind === "time" ? start.ms - 1 : start.position.generatedAtMs;
}

/** A short, stable name of one change of one thread (what the cursor remembers as reported). */
function changeDigest(environmentId: string, threadId: string, change: SinceChange): string {
  const text = `${environmentId}\n${threadId}\n${change.kind}\n${change.at}\n${change.requestKind ?? ""}`;
  return createHash("sha256").update(text).digest("base64url").slice(0, 10);
}

/**
 * What changed in one environment's shell (archived threads included) since `start`, over the
 * threads its ACL shows; records the titles it read so that the next call can see renames.
 */
export function environmentSince(
  view: ShellView,
  start: SinceStart,
  titles: TitleLog,
  now: number,
): EnvironmentSince {
  const environmentId = view.environment.environmentId;
  const boundary = boundaryOf(start, environmentId);
  const alreadyReported = new Set(previousMark(start, environmentId)?.seen ?? []);
  const rows = searchableThreads(view);
  titles.observe(
    environmentId,
    rows.map(({ thread }) => ({ id: thread.id, title: thread.title })),
    Date.parse(view.readAt),
  );
  const renames = titles.renamesAfter(environmentId, renameSinceMs(start));
  const projects = projectsById(view);
  let markMs = Math.max(boundary.ms, previousMark(start, environmentId)?.ms ?? Number.NEGATIVE_INFINITY);
  const threads: ChangedThread[] = [];
  const dated: Array<{ digest: string; atMs: number }> = [];
  const lateRenames: string[] = [];
  for (const { thread } of rows) {
    const row = thread as SinceRowInput;
    markMs = Math.max(markMs, rowHighWaterMs(row));
    const fresh: SinceChange[] = [];
    for (const change of rowChangesSince(row, boundary)) {
      const digest = changeDigest(environmentId, thread.id, change);
      dated.push({ digest, atMs: Date.parse(change.at) });
      if (!alreadyReported.has(digest)) fresh.push(change);
    }
    for (const rename of renames.get(thread.id) ?? []) {
      const digest = changeDigest(environmentId, thread.id, rename);
      if (alreadyReported.has(digest)) continue;
      fresh.push(rename);
      // Dated by the read that saw it, which answers after this call began (`now`, the next
      // call's rename boundary): remembered, or the next call would report it again.
      if (Date.parse(rename.at) > now) lateRenames.push(digest);
    }
    const changes = fresh;
    if (changes.length === 0) continue;
    const item = threadItem(view.environment, thread, now, projects.get(thread.projectId));
    const newestMs = Math.max(...changes.map((change) => Date.parse(change.at)));
    threads.push({ item, changes, newestMs });
  }
  const seen = [...lateRenames, ...seenNear(dated, markMs)].slice(0, MAX_SEEN_PER_ENVIRONMENT);
  return { threads, mark: { ms: markMs, seen } };
}

/** Every change dated inside the next call's overlap has been reported by now: remember those. */
function seenNear(dated: Array<{ digest: string; atMs: number }>, markMs: number): string[] {
  return dated
    .filter((entry) => entry.atMs > markMs - SINCE_OVERLAP_MS)
    .sort((a, b) => b.atMs - a.atMs)
    .slice(0, MAX_SEEN_PER_ENVIRONMENT)
    .map((entry) => entry.digest);
}
