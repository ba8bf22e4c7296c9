/** Command decoding, receipts and domain refusals of orchestration.dispatchCommand. */
import { describe, expect, it } from "vitest";
import { COMMAND_TYPES } from "../../src/model/index.js";
import { buildArchivedShellSnapshot } from "../../src/model/projection.js";
import {
  dispatch,
  fixture,
  fixtureExit,
  type Json,
  send,
  sequenceOf,
  shellOf,
  withThread,
} from "./helpers.js";

describe("orchestration.dispatchCommand", () => {
  it("answers a repeated commandId with the original sequence and commits nothing (fixture 31)", async () => {
    const { model, threadId } = withThread();
    const pin = { type: "thread.pin", commandId: "pin-1", threadId };
    const first = await model.callUnary("orchestration.dispatchCommand", pin);
    const before = model.sequence;
    const again = await model.callUnary("orchestration.dispatchCommand", pin);
    expect(again).toEqual(first);
    expect(model.sequence).toBe(before);
    expect(model.receivedCommands.filter((c) => c.commandId === "pin-1")).toHaveLength(1);
  });

  it("silently drops a different command that reuses a commandId (fixture 32)", async () => {
    const { model, threadId } = withThread();
    const first = sequenceOf(
      await model.callUnary("orchestration.dispatchCommand", {
        type: "thread.pin",
        commandId: "c-1",
        threadId,
      }),
    );
    const reuse = await model.callUnary("orchestration.dispatchCommand", {
      type: "thread.settle",
      commandId: "c-1",
      threadId,
    });
    expect(sequenceOf(reuse)).toBe(first);
    expect(model.getThread(threadId)?.shell.settledAt).toBeNull();
    expect(model.receivedCommands.map((c) => c.type)).toEqual(["thread.pin"]);
  });

  it("fails a previously rejected commandId again, even once the command would succeed", async () => {
    // A transitional (0.0.31-like) build answers the very same failure again.
    const { model, project } = withThread({ transitional: true });
    const command = { type: "thread.settle", commandId: "late", threadId: "thread-late" };
    const first = await model.callUnary("orchestration.dispatchCommand", command);
    expect(first.kind).toBe("fail");
    model.addThread({ id: "thread-late", projectId: project.id });
    expect(await model.callUnary("orchestration.dispatchCommand", command)).toEqual(first);
    expect(model.receivedCommands).toHaveLength(0);
  });

  it("fails a previously rejected commandId again on current upstream too, naming it previously rejected", async () => {
    const { model, project } = withThread();
    const command = { type: "thread.settle", commandId: "late", threadId: "thread-late" };
    const first = await model.callUnary("orchestration.dispatchCommand", command);
    expect(first.kind).toBe("fail");
    model.addThread({ id: "thread-late", projectId: project.id });
    const again = await model.callUnary("orchestration.dispatchCommand", command);
    expect(again).toMatchObject({
      kind: "fail",
      error: { _tag: "OrchestrationV2DispatchCommandError", commandId: "late", commandType: "thread.settle" },
    });
    expect(JSON.stringify(again)).toContain("OrchestratorCommandPreviouslyRejectedError");
    expect(model.getThread("thread-late")?.shell.settledAt).toBeNull();
    expect(model.receivedCommands).toHaveLength(0);
  });

  it("fails the same commandId on another thread as a conflict, applying nothing", async () => {
    const { model, threadId, project } = withThread();
    model.addThread({ id: "thread-b", projectId: project.id });
    const first = sequenceOf(
      await model.callUnary("orchestration.dispatchCommand", {
        type: "thread.pin",
        commandId: "k-1",
        threadId,
      }),
    );
    const before = model.sequence;
    const elsewhere = await model.callUnary("orchestration.dispatchCommand", {
      type: "thread.pin",
      commandId: "k-1",
      threadId: "thread-b",
    });
    expect(elsewhere).toMatchObject({
      kind: "fail",
      error: { _tag: "OrchestrationV2DispatchCommandError", commandId: "k-1", commandType: "thread.pin" },
    });
    expect(JSON.stringify(elsewhere)).toMatch(/conflict/i);
    expect(model.sequence).toBe(before);
    expect(model.getThread("thread-b")?.shell.pinnedAt ?? null).toBeNull();
    // The original thread still gets its original receipt.
    const again = await model.callUnary("orchestration.dispatchCommand", {
      type: "thread.pin",
      commandId: "k-1",
      threadId,
    });
    expect(sequenceOf(again)).toBe(first);
  });

  it("answers a well-formed command for an unknown thread with the typed error of fixture 34", async () => {
    const { model } = withThread();
    const payload = fixture("34-ws-dispatch-unknown-thread.json").request.ws_frames_sent[0].frame.payload;
    const outcome = await model.callUnary("orchestration.dispatchCommand", payload);
    expect(outcome).toEqual({
      kind: "fail",
      error: fixtureExit("34-ws-dispatch-unknown-thread.json").cause[0].error,
    });
  });

  it("accepts thread.create for an unknown project and refuses its first message (fixtures 20b, 20c)", async () => {
    const { model } = withThread();
    const create = fixture("20b-ws-dispatch-thread-create-unknown-project.json").request.ws_frames_sent[0]
      .frame.payload;
    expect((await model.callUnary("orchestration.dispatchCommand", create)).kind).toBe("success");
    const message = fixture("20c-ws-dispatch-message-on-unknown-project-thread.json").request
      .ws_frames_sent[0].frame.payload;
    const outcome = await model.callUnary("orchestration.dispatchCommand", message);
    expect(outcome).toEqual({
      kind: "fail",
      error: fixtureExit("20c-ws-dispatch-message-on-unknown-project-thread.json").cause[0].error,
    });
  });

  it("dies with the schema message for a missing field and an unknown type (fixtures 33, 33b)", async () => {
    const { model } = withThread();
    const missing = fixture("33-ws-dispatch-invalid-missing-threadId.json").request.ws_frames_sent[0].frame
      .payload;
    expect(await model.callUnary("orchestration.dispatchCommand", missing)).toEqual({
      kind: "die",
      defect: fixtureExit("33-ws-dispatch-invalid-missing-threadId.json").cause[0].defect,
    });
    const unknown = fixture("33b-ws-dispatch-unknown-command-type.json").request.ws_frames_sent[0].frame
      .payload;
    const outcome = await model.callUnary("orchestration.dispatchCommand", unknown);
    const expected: string = fixtureExit("33b-ws-dispatch-unknown-command-type.json").cause[0].defect;
    expect(outcome.kind).toBe("die");
    // The sim knows the newer command types too; the 0.0.31 list is its prefix.
    const defect = (outcome as { defect: string }).defect;
    expect(defect.startsWith(expected.slice(0, -1))).toBe(true);
    expect(defect).toContain('"queue.resume"');
    expect(model.receivedCommands).toHaveLength(0);
  });

  it("reports wrong types and bad enum values with the path", async () => {
    const { model, threadId } = withThread();
    expect(await dispatch(model, { type: "thread.runtime-mode.set", threadId, runtimeMode: "yolo" })).toEqual(
      {
        kind: "die",
        defect:
          'Expected "approval-required" | "auto-accept-edits" | "auto" | "full-access", got "yolo"\n  at ["runtimeMode"]',
      },
    );
    expect(await dispatch(model, { type: "thread.pin", threadId: 42 })).toEqual({
      kind: "die",
      defect: 'Expected string, got 42\n  at ["threadId"]',
    });
  });

  it("reports a missing field inside the dispatch mode with its full path", async () => {
    const { model, threadId } = withThread();
    const outcome = await send(model, threadId, "steer", { type: "steer_active" });
    expect(outcome).toEqual({ kind: "die", defect: 'Missing key\n  at ["dispatchMode"]["targetRunId"]' });
  });

  it("ignores unknown fields by default and dies on them with strictCommands", async () => {
    const lenient = withThread();
    expect(
      (await dispatch(lenient.model, { type: "thread.pin", threadId: lenient.threadId, extra: 1 })).kind,
    ).toBe("success");
    const strict = withThread({ strictCommands: true });
    expect(await dispatch(strict.model, { type: "thread.pin", threadId: strict.threadId, extra: 1 })).toEqual(
      {
        kind: "die",
        defect: 'Unexpected key\n  at ["extra"]',
      },
    );
  });

  it("records every accepted command with its type, payload and sequence", async () => {
    const { model, threadId } = withThread();
    const outcome = await dispatch(model, { type: "thread.settle", threadId });
    await dispatch(model, { type: "thread.settle", threadId: "missing" });
    expect(model.receivedCommands).toEqual([
      expect.objectContaining({
        type: "thread.settle",
        sequence: sequenceOf(outcome),
        payload: expect.objectContaining({ threadId }),
      }),
    ]);
  });

  it("decodes every catalogued command type (no type is missing a handler)", async () => {
    const { model } = withThread();
    for (const type of COMMAND_TYPES) {
      const outcome = await dispatch(model, { type });
      expect(outcome.kind, type).toBe("die");
      expect((outcome as { defect: string }).defect, type).toMatch(/^Missing key/);
    }
  });
});

describe("overlays (fixtures 23-25)", () => {
  it("settle, snooze and pin keep the status and settling keeps snoozedUntil", async () => {
    const { model, threadId } = withThread();
    const until = "2026-12-03T13:00:00.000Z";
    await dispatch(model, { type: "thread.snooze", threadId, snoozedUntil: until });
    await dispatch(model, { type: "thread.settle", threadId });
    await dispatch(model, { type: "thread.pin", threadId });
    const shell = shellOf(model, threadId);
    expect(shell.status).toBe("idle");
    expect([shell.settledOverride, shell.snoozedUntil]).toEqual(["settled", until]);
    expect(shell.pinnedAt).not.toBeNull();
    const types = model.getThread(threadId)?.events.map((e) => e.event.type);
    expect(types?.slice(-3)).toEqual(["thread.snoozed", "thread.settled", "thread.pinned"]);
  });

  it("lifts settle and snooze when a message is dispatched, in the same commit", async () => {
    const { model, threadId } = withThread();
    await dispatch(model, { type: "thread.settle", threadId });
    await dispatch(model, { type: "thread.snooze", threadId, snoozedUntil: "2026-12-09T00:00:00.000Z" });
    const sequence = sequenceOf(await send(model, threadId, "wake up"));
    const events = model
      .getThread(threadId)
      ?.events.filter((e) => e.commandId === model.receivedCommands.at(-1)?.commandId);
    expect(events?.slice(0, 2).map((e) => e.event.type)).toEqual(["thread.unsettled", "thread.unsnoozed"]);
    expect(events?.at(-1)?.sequence).toBe(sequence);
    const shell = shellOf(model, threadId);
    expect([shell.settledAt, shell.snoozedUntil]).toEqual([null, null]);
  });

  it("clears the pin on settle and accepts an unpin of an unpinned thread without a change (fixtures 50, 52)", async () => {
    const { model, clock, threadId } = withThread();
    await dispatch(model, { type: "thread.pin", threadId });
    clock.advance(1_000);
    await dispatch(model, { type: "thread.settle", threadId });
    const settled = shellOf(model, threadId);
    expect([settled.pinnedAt, settled.settledOverride]).toEqual([null, "settled"]);
    clock.advance(1_000);
    const sequence = sequenceOf(await dispatch(model, { type: "thread.unpin", threadId }));
    expect(model.getThread(threadId)?.lastSequence).toBe(sequence);
    expect(shellOf(model, threadId).updatedAt).toBe(settled.updatedAt);
  });

  it("needs no event when a snooze expires", async () => {
    const { model, clock, threadId } = withThread();
    await dispatch(model, {
      type: "thread.snooze",
      threadId,
      snoozedUntil: new Date(clock.now() + 1_000).toISOString(),
    });
    const before = model.sequence;
    clock.advance(5_000);
    expect(model.sequence).toBe(before);
    expect(shellOf(model, threadId).snoozedUntil).not.toBeNull();
  });

  it("keeps the newest visit watermark and archives out of the shell into the archived snapshot", async () => {
    const { model, threadId } = withThread();
    await dispatch(model, { type: "thread.visit", threadId, visitedAt: "2026-12-02T14:00:00.000Z" });
    await dispatch(model, { type: "thread.visit", threadId, visitedAt: "2026-12-02T10:00:00.000Z" });
    expect(shellOf(model, threadId).lastVisitedAt).toBe("2026-12-02T14:00:00.000Z");
    await dispatch(model, { type: "thread.archive", threadId });
    const shell = (model.httpShell() as { body: Json }).body;
    expect([shell.threads.length, shell.archivedThreads.length]).toEqual([0, 0]);
    expect((buildArchivedShellSnapshot(model.store) as Json).threads.map((t: Json) => t.id)).toEqual([
      threadId,
    ]);
    // A repeat commits a new event but changes nothing (like unpin in fixture 52).
    const updatedAt = shellOf(model, threadId).updatedAt;
    expect((await dispatch(model, { type: "thread.archive", threadId })).kind).toBe("success");
    expect(shellOf(model, threadId).updatedAt).toBe(updatedAt);
  });

  it("deletes a thread: reads answer 404 and later commands do not find it", async () => {
    const { model, threadId } = withThread();
    await dispatch(model, { type: "thread.delete", threadId });
    expect(model.httpThread(threadId)).toMatchObject({ kind: "error", status: 404 });
    expect((await dispatch(model, { type: "thread.pin", threadId })).kind).toBe("fail");
  });
});
