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
} from "../listing/shells.js";
import type { SincePosition } from "./since-cursor.js";
import type { TitleLog } from "./title-log.js";

/** Where a call starts: a time the caller gave (inclusive), or the marks of its cursor (exclusive). */
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
  /** The newest instant its rows carried (its clock): the next cursor's mark. */
  markMs: number;
}

/** The boundary of the shell's own timestamps in one environment. */
export function boundaryOf(start: SinceStart, environmentId: string): SinceBoundary {
  if (start.kind === "time") return { ms: start.ms, inclusive: true };
  const mark = start.position.marks.get(environmentId);
  return { ms: mark ?? start.position.generatedAtMs, inclusive: false };
}

/** The boundary of the renames this server saw (its own clock). */
function renameSinceMs(start: SinceStart): number {
  // A time the caller gave is inclusive; renames are compared with `>`, hence the millisecond.
  return start.kind === "time" ? start.ms - 1 : start.position.generatedAtMs;
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
  const rows = searchableThreads(view);
  const readAtMs = Date.parse(view.readAt);
  titles.observe(
    environmentId,
    rows.map(({ thread }) => ({ id: thread.id, title: thread.title })),
    readAtMs,
  );
  const renames = titles.renamesAfter(environmentId, renameSinceMs(start));
  const projects = projectsById(view);
  let markMs = boundary.ms;
  const threads: ChangedThread[] = [];
  for (const { thread } of rows) {
    const row = thread as SinceRowInput;
    markMs = Math.max(markMs, rowHighWaterMs(row));
    const changes = [...rowChangesSince(row, boundary), ...(renames.get(thread.id) ?? [])];
    if (changes.length === 0) continue;
    const item = threadItem(view.environment, thread, now, projects.get(thread.projectId));
    const newestMs = Math.max(...changes.map((change) => Date.parse(change.at)));
    threads.push({ item, changes, newestMs });
  }
  return { threads, markMs };
}
