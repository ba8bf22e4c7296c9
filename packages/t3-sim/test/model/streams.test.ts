/** Stream RPCs (fixtures 36, 50-58) and the bounded/history HTTP reads. */
import { describe, expect, it } from "vitest";
import { THREAD_RESUME_MAX_REPLAY_EVENTS, THREAD_STREAM_INTERRUPT_DEFECT } from "../../src/model/index.js";
import {
  CaptureSink,
  dispatch,
  fixture,
  fixtureExit,
  type Json,
  keysOf,
  makeModel,
  send,
  sequenceOf,
  shapeOf,
  withThread,
} from "./helpers.js";

const open = (model: ReturnType<typeof withThread>["model"], tag: string, payload: unknown) => {
  const sink = new CaptureSink();
  const result = model.openStream(tag, payload, sink);
  if (result.kind !== "open") throw new Error(`stream did not open: ${JSON.stringify(result)}`);
  return { sink, handle: result.handle };
};

/** The captures (fixtures 36, 50-58) come from the transitional 0.0.31 build. */
const TRANSITIONAL = { transitional: true };

describe("orchestration.subscribeShell on the transitional (0.0.31) build", () => {
  it("sends the snapshot pair without a marker, then one thread.updated per commit (fixture 50)", async () => {
    const { model, threadId } = withThread(TRANSITIONAL);
    const { sink } = open(model, "orchestration.subscribeShell", {});
    expect(sink.emits).toHaveLength(1);
    expect(sink.emits[0]?.map((v: Json) => v.kind)).toEqual(["snapshot", "snapshot"]);
    const sequence = sequenceOf(await dispatch(model, { type: "thread.settle", threadId }));
    expect(sink.emits).toHaveLength(2);
    const expected = fixture("50-ws-subscribeShell-plain.json").response.ws_frames_received[1].frame
      .values[0];
    expect(shapeOf(sink.emits[1]?.[0])).toEqual(shapeOf(expected));
    expect(sink.emits[1]?.[0]).toMatchObject({ kind: "thread.updated", sequence, location: "active" });
  });

  it("with afterSequence still sends the snapshot pair, then the changed threads in one emit, then the marker (fixture 53)", async () => {
    const { model, project, threadId } = withThread(TRANSITIONAL);
    const other = model.addThread({ projectId: project.id, title: "other" });
    const quiet = model.addThread({ projectId: project.id, title: "quiet" });
    const after = model.sequence;
    await dispatch(model, { type: "thread.pin", threadId });
    await dispatch(model, { type: "thread.settle", threadId: other });
    const last = sequenceOf(await dispatch(model, { type: "thread.unpin", threadId }));
    const { sink } = open(model, "orchestration.subscribeShell", {
      afterSequence: after,
      requestCompletionMarker: true,
    });
    expect(sink.emits.map((emit) => emit.map((v: Json) => v.kind))).toEqual([
      ["snapshot", "snapshot"],
      ["thread.updated", "thread.updated"],
      ["synchronized"],
    ]);
    const replay = sink.emits[1] as Json[];
    expect(replay.map((v) => [v.thread.id, v.sequence])).toEqual([
      [other, after + 2],
      [threadId, last],
    ]);
    expect(replay.some((v) => v.thread.id === quiet)).toBe(false);
    const expected = fixture("53-ws-subscribeShell-afterSequence.json").response.ws_frames_received[1].frame
      .values;
    expect(keysOf(replay[0])).toEqual(keysOf(expected[0]));
  });

  it("shows an archive as location archive and a delete as thread.removed (fixture 36)", async () => {
    const { model, threadId } = withThread(TRANSITIONAL);
    const { sink } = open(model, "orchestration.subscribeShell", {});
    await dispatch(model, { type: "thread.archive", threadId });
    await dispatch(model, { type: "thread.delete", threadId });
    const [archived, removed] = sink.items.slice(2);
    expect(archived).toMatchObject({ kind: "thread.updated", location: "archive" });
    expect(removed).toEqual({
      kind: "thread.removed",
      sequence: model.sequence,
      location: "archive",
      threadId,
    });
  });

  it("folds all events of one command into one thread.updated at the last sequence", async () => {
    const { model, threadId } = withThread(TRANSITIONAL);
    const { sink } = open(model, "orchestration.subscribeShell", {});
    const sequence = sequenceOf(await send(model, threadId, "hello"));
    expect(sink.emits.at(-1)).toEqual([expect.objectContaining({ kind: "thread.updated", sequence })]);
  });

  it("announces project changes and releases its listener on close", async () => {
    const { model, threadId } = withThread(TRANSITIONAL);
    const listeners = model.store.listenerCount;
    const { sink, handle } = open(model, "orchestration.subscribeShell", {});
    model.httpProjectsMutate({
      type: "project.create",
      commandId: "p2",
      projectId: "p2",
      title: "two",
      workspaceRoot: "/tmp",
    });
    expect(sink.items.at(-1)).toMatchObject({ kind: "project.updated", project: { id: "p2" } });
    handle.close();
    expect(model.store.listenerCount).toBe(listeners);
    const emits = sink.emits.length;
    await dispatch(model, { type: "thread.pin", threadId });
    expect(sink.emits).toHaveLength(emits);
    expect(handle.interruptExit).toEqual({ kind: "interrupt" });
  });
});

describe("orchestration.subscribeThread", () => {
  it("sends a snapshot then each commit's events in one emit (fixtures 37, 54)", async () => {
    const { model, threadId } = withThread();
    const { sink, handle } = open(model, "orchestration.subscribeThread", { threadId });
    expect(sink.emits[0]).toEqual([
      expect.objectContaining({
        kind: "snapshot",
        snapshotSequence: model.getThread(threadId)?.lastSequence,
      }),
    ]);
    const expected = fixture("54-ws-subscribeThread-plain.json").response.ws_frames_received[0].frame
      .values[0];
    expect(keysOf(sink.emits[0]?.[0])).toEqual(keysOf(expected));
    await send(model, threadId, "hello");
    expect(sink.emits).toHaveLength(2);
    expect(sink.emits[1]?.every((v: Json) => v.kind === "event")).toBe(true);
    expect(sink.emits[1]).toHaveLength(7);
    expect(handle.interruptExit).toEqual({ kind: "die", defect: THREAD_STREAM_INTERRUPT_DEFECT });
    expect(THREAD_STREAM_INTERRUPT_DEFECT).toBe(
      fixtureExit("54-ws-subscribeThread-plain.json").cause[0].defect,
    );
  });

  it("replays stored events after N one per emit, then the marker (fixture 56)", async () => {
    const { model, threadId } = withThread();
    const from = model.getThread(threadId)?.lastSequence ?? 0;
    await send(model, threadId, "hello");
    await dispatch(model, { type: "thread.pin", threadId });
    const { sink } = open(model, "orchestration.subscribeThread", {
      threadId,
      afterSequence: from,
      requestCompletionMarker: true,
    });
    const stored = model.getThread(threadId)?.events.filter((e) => e.sequence > from) ?? [];
    expect(sink.emits).toHaveLength(stored.length + 1);
    expect(sink.emits.slice(0, -1).every((emit) => emit.length === 1)).toBe(true);
    expect(sink.items.slice(0, -1).map((v: Json) => v.sequence)).toEqual(stored.map((e) => e.sequence));
    expect(sink.emits.at(-1)).toEqual([{ kind: "synchronized" }]);
    expect(sink.items.some((v: Json) => v.kind === "snapshot")).toBe(false);
  });

  it("falls back to a snapshot when N is past the high-water mark or too many events would replay", async () => {
    const { model, threadId } = withThread();
    const ahead = open(model, "orchestration.subscribeThread", {
      threadId,
      afterSequence: model.sequence + 10,
    });
    expect(ahead.sink.items.map((v: Json) => v.kind)).toEqual(["snapshot"]);
    for (let i = 0; i <= THREAD_RESUME_MAX_REPLAY_EVENTS; i++)
      await dispatch(model, { type: "thread.pin", threadId });
    const far = open(model, "orchestration.subscribeThread", { threadId, afterSequence: 0 });
    expect(far.sink.items.map((v: Json) => v.kind)).toEqual(["snapshot"]);
  });

  it("fails an unknown thread with the typed error of fixture 57", () => {
    const { model } = makeModel();
    const threadId = "06e05c90-1e4d-4537-b085-62e64c976228";
    const result = model.openStream("orchestration.subscribeThread", { threadId }, new CaptureSink());
    expect(result).toEqual({
      kind: "fail",
      error: fixtureExit("57-ws-subscribeThread-unknown-thread.json").cause[0].error,
    });
  });

  it("releases its listener on close", async () => {
    const { model, threadId } = withThread();
    const before = model.store.listenerCount;
    const { sink, handle } = open(model, "orchestration.subscribeThread", { threadId });
    handle.close();
    expect(model.store.listenerCount).toBe(before);
    await dispatch(model, { type: "thread.pin", threadId });
    expect(sink.emits).toHaveLength(1);
  });
});

describe("orchestration.subscribeArchivedShell on the transitional (0.0.31) build", () => {
  it("sends the archived snapshot, then removed/updated items without location (fixture 58)", async () => {
    const { model, threadId } = withThread(TRANSITIONAL);
    await dispatch(model, { type: "thread.archive", threadId });
    const { sink } = open(model, "orchestration.subscribeArchivedShell", {});
    const expected = fixture("58-ws-subscribeArchivedShell.json").response.ws_frames_received.map(
      (f: Json) => f.frame,
    );
    expect(shapeOf(sink.items[0])).toEqual(shapeOf(expected[0].values[0]));
    const unarchived = sequenceOf(await dispatch(model, { type: "thread.unarchive", threadId }));
    const archived = sequenceOf(await dispatch(model, { type: "thread.archive", threadId }));
    expect(sink.items[1]).toEqual({ kind: "thread.removed", sequence: unarchived, threadId });
    expect(sink.items[2]).toMatchObject({ kind: "thread.updated", sequence: archived });
    expect(keysOf(sink.items[2])).toEqual(keysOf(expected[2].values[0]));
  });
});

describe("bounded snapshot and history pages", () => {
  it("windows the timeline, pages older rows with an opaque cursor and rejects a bad cursor", async () => {
    const { model, clock, threadId } = withThread({ historyPageSize: 4 });
    for (let i = 0; i < 4; i++) {
      await send(model, threadId, `message ${i}`);
      clock.advance(100);
    }
    const all = (model.httpThread(threadId) as { body: Json }).body.projection.visibleTurnItems;
    expect(all).toHaveLength(12);
    const bounded = (model.httpThreadBounded(threadId) as { body: Json }).body;
    expect(keysOf(bounded)).toEqual([
      "hasMoreHistory",
      "historyCursor",
      "latestLocalTurnOrdinal",
      "payloadBudgetExceeded",
      "projection",
      "snapshotSequence",
    ]);
    expect(bounded.projection.visibleTurnItems.map((r: Json) => r.sourceItemId)).toEqual(
      all.slice(-4).map((r: Json) => r.sourceItemId),
    );
    expect(bounded.projection.runs).toHaveLength(4);
    expect(bounded.hasMoreHistory).toBe(true);
    expect(bounded.latestLocalTurnOrdinal).toBe(Math.max(...all.map((r: Json) => r.item.ordinal)));
    const page = (model.httpThreadHistory(threadId, bounded.historyCursor) as { body: Json }).body;
    expect(keysOf(page)).toEqual(["hasMoreHistory", "items", "nextCursor", "snapshotSequence"]);
    expect(page.items.map((r: Json) => r.sourceItemId)).toEqual(
      all.slice(4, 8).map((r: Json) => r.sourceItemId),
    );
    const last = (model.httpThreadHistory(threadId, page.nextCursor) as { body: Json }).body;
    expect([last.items.length, last.hasMoreHistory, last.nextCursor]).toEqual([4, false, null]);
    const bad = model.httpThreadHistory(threadId, "not-a-cursor");
    expect(bad).toMatchObject({
      kind: "error",
      status: 400,
      body: {
        _tag: "EnvironmentRequestInvalidError",
        code: "invalid_request",
        reason: "invalid_history_cursor",
      },
    });
    expect(model.httpThreadBounded("nope")).toMatchObject({
      kind: "error",
      status: 404,
      body: { reason: "thread_not_found" },
    });
  });
});
