/**
 * `orchestration.subscribeShell` and `orchestration.subscribeArchivedShell` as current upstream
 * serves them (protocol 2; `apps/server/src/orchestration-v2/ShellStream.ts` @85643217 and the
 * subscribeShell / archived-shell handlers that use it):
 *
 * - first subscribe (or a resume that cannot replay): the authoritative snapshot over the active
 *   location (`archivedThreads: []`), then a same-sequence metadata frame marked with
 *   `resolvedRepositoryIdentityRoots` (no threads, the projects of those roots);
 * - resume (`afterSequence` within 1000 of the high-water mark): only the metadata frame, at the
 *   high-water mark, then the missed items (newest per aggregate), then `synchronized`, then live;
 * - live: one item per aggregate per 50 ms window, read from the current state; an archived or
 *   deleted thread is `thread.removed` with location `active`; unchanged rows are held back;
 * - enrichment refreshes (`SimStore.announceEnrichment`) send metadata frames at any time.
 *
 * The 0.0.31 shapes (snapshot pair on resume, `location: "archive"`) stay in streams.ts.
 */

import { z } from "zod";
import type { SimClock } from "../clock.js";
import { decodeWith, nonNegativeInt } from "./commands/decode.js";
import type { StreamOpenResult, StreamSink } from "./contract.js";
import {
  buildArchivedShellSnapshot,
  buildShellSnapshot,
  buildShellThread,
  projectShell,
} from "./projection.js";
import {
  CoalescingWindow,
  EnrichmentDedupe,
  SHELL_RESUME_MAX_GAP,
  UnchangedThreadFilter,
} from "./shell-window.js";
import type { SimStore, ThreadRecord } from "./store.js";

export interface CurrentShellOptions {
  readonly clock: SimClock;
  /** Coalescing and the unchanged-row filter; off sends one item per commit, every row. */
  readonly suppression: boolean;
}

const shellInput = z.object({
  afterSequence: nonNegativeInt().optional(),
  requestCompletionMarker: z.boolean().optional(),
});
const emptyInput = z.object({});

type Item = Record<string, unknown> & { kind: string };
/** What changed in one window: a thread or a project, at the newest event's sequence. */
type Change =
  | {
      readonly aggregate: "thread";
      readonly id: string;
      readonly sequence: number;
      readonly eventType: string;
    }
  | {
      readonly aggregate: "project";
      readonly id: string;
      readonly sequence: number;
      readonly removed: boolean;
    };

/** Every project root counts as resolved: the simulator's identities are known (null) at once. */
function resolvedRoots(store: SimStore): string[] {
  return [...new Set([...store.projects.values()].map((project) => project.workspaceRoot))];
}

/** A metadata-only snapshot for `roots`: no threads, only the projects of those roots. */
export function metadataSnapshotItem(store: SimStore, roots: readonly string[]): Item {
  const wanted = new Set(roots);
  const base = buildShellSnapshot(store);
  return {
    kind: "snapshot",
    snapshot: {
      ...base,
      projects: [...store.projects.values()]
        .filter((project) => wanted.has(project.workspaceRoot))
        .map(projectShell),
      threads: [],
      archivedThreads: [],
    },
    resolvedRepositoryIdentityRoots: [...wanted],
  };
}

function initialItems(store: SimStore): Item[] {
  const roots = resolvedRoots(store);
  const authoritative: Item = { kind: "snapshot", snapshot: buildShellSnapshot(store) };
  return roots.length === 0 ? [authoritative] : [authoritative, metadataSnapshotItem(store, roots)];
}

function threadItem(store: SimStore, change: Extract<Change, { aggregate: "thread" }>): Item {
  const record: ThreadRecord | undefined = store.threads.get(change.id);
  if (!record || record.thread.deletedAt || record.thread.archivedAt)
    return { kind: "thread.removed", sequence: change.sequence, location: "active", threadId: change.id };
  return {
    kind: "thread.updated",
    sequence: change.sequence,
    location: "active",
    thread: buildShellThread(record),
  };
}

function projectItem(store: SimStore, change: Extract<Change, { aggregate: "project" }>): Item {
  const project = store.projects.get(change.id);
  if (change.removed || !project)
    return { kind: "project.removed", sequence: change.sequence, projectId: change.id };
  return { kind: "project.updated", sequence: change.sequence, project: projectShell(project) };
}

const itemFor = (store: SimStore, change: Change): Item =>
  change.aggregate === "thread" ? threadItem(store, change) : projectItem(store, change);

/** The aggregates changed after `afterSequence`, newest event per aggregate, in sequence order. */
function changesAfter(store: SimStore, afterSequence: number): Change[] {
  const changes: Change[] = [];
  for (const record of store.threads.values()) {
    const last = record.events.at(-1);
    if (!last || last.sequence <= afterSequence) continue;
    changes.push({
      aggregate: "thread",
      id: record.thread.id,
      sequence: last.sequence,
      eventType: last.event.type,
    });
  }
  for (const project of store.projects.values())
    if (project.lastSequence > afterSequence)
      changes.push({ aggregate: "project", id: project.id, sequence: project.lastSequence, removed: false });
  for (const [id, sequence] of store.removedProjects)
    if (sequence > afterSequence) changes.push({ aggregate: "project", id, sequence, removed: true });
  return changes.sort((a, b) => a.sequence - b.sequence);
}

export function openCurrentShellStream(
  store: SimStore,
  options: CurrentShellOptions,
  payload: unknown,
  sink: StreamSink,
): StreamOpenResult {
  const input = decodeWith(shellInput, payload);
  if (!input.ok) return { kind: "die", defect: input.defect };
  const { afterSequence, requestCompletionMarker } = input.value;
  const dedupe = new EnrichmentDedupe();
  const send = (items: Item[]) => {
    const kept = items.filter((item) => dedupe.keep(item));
    if (kept.length > 0) sink.emit(kept);
  };

  const highWater = store.sequence;
  const gap = afterSequence === undefined ? -1 : highWater - afterSequence;
  if (afterSequence === undefined || gap < 0 || gap > SHELL_RESUME_MAX_GAP) {
    send(initialItems(store));
  } else {
    const roots = resolvedRoots(store);
    if (roots.length > 0) send([metadataSnapshotItem(store, roots)]);
    // The replay has its own unchanged-row filter (upstream builds one per stream segment);
    // each aggregate appears once in it, so it never holds a row back.
    const replay = changesAfter(store, afterSequence).map((change) => itemFor(store, change));
    if (replay.length > 0) send(replay);
  }
  if (requestCompletionMarker) send([{ kind: "synchronized" }]);

  const filter = new UnchangedThreadFilter(options.clock, options.suppression);
  const window = new CoalescingWindow<Change>(options.clock, options.suppression, (changes) =>
    send(changes.map((change) => itemFor(store, change)).filter((item) => filter.keep(item))),
  );
  const unsubscribe = store.subscribe((commit) => {
    if (commit.kind === "project") {
      const change: Change = {
        aggregate: "project",
        id: commit.project.id,
        sequence: commit.sequence,
        removed: commit.removed,
      };
      window.add(`project:${change.id}`, change);
      return;
    }
    const last = commit.events.at(-1);
    if (!last || (commit.before === "new" && commit.after === "removed")) return;
    window.add(`thread:${commit.record.thread.id}`, {
      aggregate: "thread",
      id: commit.record.thread.id,
      sequence: last.sequence,
      eventType: last.event.type,
    });
  });
  const stopEnrichment = store.onEnrichment((roots) => send([metadataSnapshotItem(store, roots)]));
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    unsubscribe();
    stopEnrichment();
    window.close();
  };
  return { kind: "open", handle: { close, interruptExit: { kind: "interrupt" } } };
}

/**
 * The archive stream: the archived snapshot, then per window and thread (newest event) an
 * archived thread is `thread.updated`, an unarchive or the delete of an archived thread is
 * `thread.removed`, anything else nothing. A thread archived in a project the subscriber has not
 * seen restarts the stream from a fresh snapshot (`archivedShellItemsNeedSnapshot`).
 */
export function openCurrentArchivedShellStream(
  store: SimStore,
  options: CurrentShellOptions,
  payload: unknown,
  sink: StreamSink,
): StreamOpenResult {
  const input = decodeWith(emptyInput, payload);
  if (!input.ok) return { kind: "die", defect: input.defect };
  let knownProjects = new Set<string>();
  const sendSnapshot = () => {
    const snapshot = buildArchivedShellSnapshot(store) as { projects: { id: string }[] };
    knownProjects = new Set(snapshot.projects.map((project) => project.id));
    sink.emit([{ kind: "snapshot", snapshot }]);
  };
  sendSnapshot();
  const window = new CoalescingWindow<Extract<Change, { aggregate: "thread" }>>(
    options.clock,
    options.suppression,
    (changes) => {
      const items: Item[] = [];
      for (const change of changes) {
        const record = store.threads.get(change.id);
        if (record?.thread.archivedAt && !record.thread.deletedAt) {
          items.push({ kind: "thread.updated", sequence: change.sequence, thread: buildShellThread(record) });
        } else if (
          change.eventType === "thread.unarchived" ||
          (change.eventType === "thread.deleted" && record?.thread.archivedAt)
        ) {
          items.push({ kind: "thread.removed", sequence: change.sequence, threadId: change.id });
        }
      }
      const unknownProject = items.some(
        (item) =>
          item.kind === "thread.updated" &&
          !knownProjects.has((item.thread as { projectId: string }).projectId),
      );
      if (unknownProject) sendSnapshot();
      else if (items.length > 0) sink.emit(items);
    },
  );
  const unsubscribe = store.subscribe((commit) => {
    if (commit.kind !== "thread") return;
    const last = commit.events.at(-1);
    if (!last) return;
    window.add(commit.record.thread.id, {
      aggregate: "thread",
      id: commit.record.thread.id,
      sequence: last.sequence,
      eventType: last.event.type,
    });
  });
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    unsubscribe();
    window.close();
  };
  return { kind: "open", handle: { close, interruptExit: { kind: "interrupt" } } };
}
