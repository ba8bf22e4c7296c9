/**
 * Stream RPCs. Each opens synchronously: the catch-up items are emitted before `openStream`
 * returns, then every commit becomes one `emit` (one Chunk on the wire). Shapes follow fixtures
 * 36/50-58 and 80/81; `close()` drops the store listener and any timer.
 */
import { z } from "zod";
import type { SimClock } from "../clock.js";
import { decodeWith, idString, nonNegativeInt } from "./commands/decode.js";
import type { StreamHandle, StreamOpenResult, StreamSink } from "./contract.js";
import {
  getThreadProjectionError,
  LIFECYCLE_STREAM_INTERRUPT_DEFECT,
  THREAD_STREAM_INTERRUPT_DEFECT,
} from "./errors.js";
import {
  buildArchivedShellSnapshot,
  buildProjection,
  buildShellSnapshot,
  buildShellThread,
  projectShell,
} from "./projection.js";
import { type CommitListener, locationOf, type SimStore, type ThreadRecord } from "./store.js";

/** Beyond this many events a thread resume falls back to a snapshot (THREAD_RESUME_MAX_REPLAY_EVENTS). */
export const THREAD_RESUME_MAX_REPLAY_EVENTS = 128;

const shellInput = z.object({
  afterSequence: nonNegativeInt().optional(),
  requestCompletionMarker: z.boolean().optional(),
});
const threadInput = z.object({
  threadId: idString(),
  afterSequence: nonNegativeInt().optional(),
  requestCompletionMarker: z.boolean().optional(),
  acceptBoundedSnapshot: z.boolean().optional(),
});
const emptyInput = z.object({});

function listening(store: SimStore, listener: CommitListener, extra?: () => void): () => void {
  const unsubscribe = store.subscribe(listener);
  let closed = false;
  return () => {
    if (closed) return;
    closed = true;
    unsubscribe();
    extra?.();
  };
}

function repositoryRoots(store: SimStore): string[] {
  return [...new Set([...store.projects.values()].map((project) => project.workspaceRoot))];
}

/** The transitional (0.0.31) shell stream; current upstream's is in shell-stream-current.ts. */
export function openShellStream(store: SimStore, payload: unknown, sink: StreamSink): StreamOpenResult {
  const input = decodeWith(shellInput, payload);
  if (!input.ok) return { kind: "die", defect: input.defect };
  const { afterSequence, requestCompletionMarker } = input.value;
  // Like 0.0.31 (fixture 53): the snapshot pair comes even with afterSequence.
  const snapshot = buildShellSnapshot(store, true);
  sink.emit([
    { kind: "snapshot", snapshot },
    { kind: "snapshot", snapshot, resolvedRepositoryIdentityRoots: repositoryRoots(store) },
  ]);
  if (afterSequence !== undefined) {
    const replay: { sequence: number; item: Record<string, unknown> }[] = [];
    for (const record of store.threads.values()) {
      if (record.lastSequence <= afterSequence) continue;
      const location = locationOf(record);
      replay.push({
        sequence: record.lastSequence,
        item:
          location === "removed"
            ? {
                kind: "thread.removed",
                sequence: record.lastSequence,
                location: record.thread.archivedAt ? "archive" : "active",
                threadId: record.thread.id,
              }
            : {
                kind: "thread.updated",
                sequence: record.lastSequence,
                location,
                thread: buildShellThread(record, false),
              },
      });
    }
    for (const project of store.projects.values()) {
      if (project.lastSequence > afterSequence) {
        replay.push({
          sequence: project.lastSequence,
          item: { kind: "project.updated", sequence: project.lastSequence, project: projectShell(project) },
        });
      }
    }
    replay.sort((a, b) => a.sequence - b.sequence);
    if (replay.length > 0) sink.emit(replay.map((entry) => entry.item));
  }
  if (requestCompletionMarker) sink.emit([{ kind: "synchronized" }]);
  const close = listening(store, (commit) => {
    if (commit.kind === "project") {
      sink.emit([
        commit.removed
          ? { kind: "project.removed", sequence: commit.sequence, projectId: commit.project.id }
          : { kind: "project.updated", sequence: commit.sequence, project: projectShell(commit.project) },
      ]);
      return;
    }
    const sequence = commit.record.lastSequence;
    if (commit.after === "removed") {
      if (commit.before === "new" || commit.before === "removed") return;
      sink.emit([
        { kind: "thread.removed", sequence, location: commit.before, threadId: commit.record.thread.id },
      ]);
      return;
    }
    sink.emit([
      {
        kind: "thread.updated",
        sequence,
        location: commit.after,
        thread: buildShellThread(commit.record, false),
      },
    ]);
  });
  return { kind: "open", handle: { close, interruptExit: { kind: "interrupt" } } };
}

export function openArchivedShellStream(
  store: SimStore,
  payload: unknown,
  sink: StreamSink,
): StreamOpenResult {
  const input = decodeWith(emptyInput, payload);
  if (!input.ok) return { kind: "die", defect: input.defect };
  sink.emit([{ kind: "snapshot", snapshot: buildArchivedShellSnapshot(store, false) }]);
  const close = listening(store, (commit) => {
    if (commit.kind !== "thread") return;
    const sequence = commit.record.lastSequence;
    if (commit.after === "archive") {
      sink.emit([{ kind: "thread.updated", sequence, thread: buildShellThread(commit.record, false) }]);
    } else if (commit.before === "archive") {
      sink.emit([{ kind: "thread.removed", sequence, threadId: commit.record.thread.id }]);
    }
  });
  return { kind: "open", handle: { close, interruptExit: { kind: "interrupt" } } };
}

/**
 * `bounded`: how this server builds a bounded snapshot, when it sends one by default (the 0.0.46
 * age may, age-0046.ts); absent: a full snapshot, as before.
 */
export function openThreadStream(
  store: SimStore,
  payload: unknown,
  sink: StreamSink,
  bounded?: (record: ThreadRecord) => Record<string, unknown>,
): StreamOpenResult {
  const input = decodeWith(threadInput, payload);
  if (!input.ok) return { kind: "die", defect: input.defect };
  const { threadId, afterSequence, requestCompletionMarker } = input.value;
  const record = store.liveThread(threadId);
  if (!record) return { kind: "fail", error: getThreadProjectionError(threadId) };
  const snapshot = () =>
    bounded === undefined
      ? { kind: "snapshot", snapshotSequence: record.lastSequence, projection: buildProjection(record) }
      : { kind: "snapshot", ...bounded(record) };
  if (afterSequence === undefined) {
    sink.emit([snapshot()]);
  } else {
    const missed = record.events.filter((stored) => stored.sequence > afterSequence);
    if (afterSequence > store.sequence || missed.length > THREAD_RESUME_MAX_REPLAY_EVENTS) {
      sink.emit([snapshot()]);
    } else {
      // A replay sends one event per Chunk (fixture 56), unlike live commits.
      for (const stored of missed)
        sink.emit([{ kind: "event", sequence: stored.sequence, event: stored.event }]);
    }
  }
  if (requestCompletionMarker) sink.emit([{ kind: "synchronized" }]);
  const close = listening(store, (commit) => {
    if (commit.kind !== "thread" || commit.record.thread.id !== threadId) return;
    sink.emit(
      commit.events.map((stored) => ({ kind: "event", sequence: stored.sequence, event: stored.event })),
    );
  });
  return {
    kind: "open",
    handle: { close, interruptExit: { kind: "die", defect: THREAD_STREAM_INTERRUPT_DEFECT } },
  };
}

export interface ServerStreamsDeps {
  readonly clock: SimClock;
  readonly config: () => Record<string, unknown>;
  readonly environment: () => Record<string, unknown>;
  readonly startedAt: string;
  readonly cwd: string;
}

/** Provider statuses follow the snapshot after the real server's 200 ms debounce (fixture 80). */
export const PROVIDER_STATUS_DEBOUNCE_MS = 200;

export function openServerConfigStream(
  deps: ServerStreamsDeps,
  payload: unknown,
  sink: StreamSink,
): StreamOpenResult {
  const input = decodeWith(emptyInput, payload);
  if (!input.ok) return { kind: "die", defect: input.defect };
  const config = deps.config();
  sink.emit([{ version: 1, type: "snapshot", config }]);
  let closed = false;
  const timer = deps.clock.setTimer(PROVIDER_STATUS_DEBOUNCE_MS, () => {
    if (!closed)
      sink.emit([{ version: 1, type: "providerStatuses", payload: { providers: config.providers } }]);
  });
  const handle: StreamHandle = {
    close: () => {
      closed = true;
      timer.cancel();
    },
    interruptExit: { kind: "interrupt" },
  };
  return { kind: "open", handle };
}

export function openServerLifecycleStream(
  deps: ServerStreamsDeps,
  payload: unknown,
  sink: StreamSink,
): StreamOpenResult {
  const input = decodeWith(emptyInput, payload);
  if (!input.ok) return { kind: "die", defect: input.defect };
  const environment = deps.environment();
  sink.emit([
    {
      version: 1,
      sequence: 1,
      type: "welcome",
      payload: { environment, cwd: deps.cwd, projectName: "workspace" },
    },
    { version: 1, sequence: 2, type: "ready", payload: { at: deps.startedAt, environment } },
  ]);
  return {
    kind: "open",
    handle: { close: () => {}, interruptExit: { kind: "die", defect: LIFECYCLE_STREAM_INTERRUPT_DEFECT } },
  };
}
