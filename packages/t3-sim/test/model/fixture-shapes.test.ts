/**
 * Replays the capture session's steps against the model and compares the results with the
 * real captures structurally (key sets and value types, recursively).
 */
import { describe, expect, it } from "vitest";
import {
  CaptureSink,
  dispatch,
  fixture,
  fixtureExit,
  type Json,
  keysOf,
  makeModel,
  shapeOf,
} from "./helpers.js";

const PROJECT = "d21e26bb-47ea-4b08-a81f-0abce1f8f482";
const T1 = "0798fcf8-49d7-4821-812e-7cdce591eed0";

async function captureSession() {
  // The fixtures were captured on the transitional 0.0.31 build.
  const { model, clock } = makeModel({ transitional: true });
  const created = model.httpProjectsMutate(fixture("10-http-projects-mutate-create.json").request.body);
  const shellSink = new CaptureSink();
  model.openStream("orchestration.subscribeShell", { requestCompletionMarker: true }, shellSink);
  const create = fixture("20-ws-dispatch-thread-create-1.json").request.ws_frames_sent[0].frame.payload;
  await model.callUnary("orchestration.dispatchCommand", create);
  const threadSink = new CaptureSink();
  model.openStream(
    "orchestration.subscribeThread",
    { threadId: T1, requestCompletionMarker: true },
    threadSink,
  );
  const message = fixture("21-ws-dispatch-message-start-immediately.json").request.ws_frames_sent[0].frame
    .payload;
  // 0.0.31 had no provider CLI: the run stalls in "starting" (fixture 22).
  await model.callUnary("orchestration.dispatchCommand", {
    ...message,
    text: `${message.text} [[sim:stall]]`,
  });
  clock.advance(1_000);
  for (const name of [
    "27-ws-dispatch-thread-metadata-update-title.json",
    "28-ws-dispatch-thread-runtime-mode-set.json",
    "29-ws-dispatch-thread-model-selection-set.json",
    "30-ws-dispatch-run-interrupt.json",
  ]) {
    const outcome = await model.callUnary(
      "orchestration.dispatchCommand",
      fixture(name).request.ws_frames_sent[0].frame.payload,
    );
    expect(outcome.kind).toBe("success");
  }
  return { model, clock, created, shellSink, threadSink };
}

describe("the model reproduces the captured shapes", () => {
  it("answers project mutations and lists like fixtures 10 and 11", async () => {
    const { model, created } = await captureSession();
    expect(created.kind).toBe("ok");
    expect(shapeOf((created as { body: unknown }).body)).toEqual(
      shapeOf(fixture("10-http-projects-mutate-create.json").response.body),
    );
    const list = model.httpProjects();
    expect(shapeOf((list as { body: unknown }).body)).toEqual(
      shapeOf(fixture("11-http-projects-list.json").response.body),
    );
  });

  it("fails project.create for a missing workspace root with the 500 of fixture 10a", () => {
    const { model } = makeModel();
    const outcome = model.httpProjectsMutate(
      fixture("10a-http-projects-mutate-create-missing-root.json").request.body,
    );
    const expected = fixture("10a-http-projects-mutate-create-missing-root.json").response;
    expect(outcome.kind).toBe("error");
    if (outcome.kind !== "error") return;
    expect(outcome.status).toBe(expected.status);
    expect(shapeOf(outcome.body)).toEqual(shapeOf(expected.body));
    expect({ ...outcome.body, traceId: "" }).toEqual({ ...expected.body, traceId: "" });
  });

  it("builds the thread detail of an interrupted stalled run exactly in the shape of fixture 42", async () => {
    const { model } = await captureSession();
    const detail = model.httpThread(T1);
    expect(detail.kind).toBe("ok");
    const body = (detail as { body: Json }).body;
    const expected = fixture("42-http-thread-with-message.json").response.body;
    expect(shapeOf(body)).toEqual(shapeOf(expected));
    expect(body.projection.runs[0].status).toBe("interrupted");
    expect(body.projection.attempts[0].status).toBe("interrupted");
    expect(body.projection.turnItems.map((i: Json) => i.type)).toEqual([
      "user_message",
      "run_interrupt_request",
      "run_interrupt_result",
    ]);
    expect(body.projection.turnItems[2].message).toBe("Run interrupted before provider start");
    // Ids follow the real server's formats.
    expect(body.projection.runs[0].id).toBe(expected.projection.runs[0].id);
    expect(body.projection.attempts[0].id).toBe(expected.projection.attempts[0].id);
    expect(body.projection.providerThreads[0].id).toBe(expected.projection.providerThreads[0].id);
    expect(body.projection.turnItems.map((i: Json) => i.id)).toEqual(
      expected.projection.turnItems.map((i: Json) => i.id),
    );
  });

  it("answers the bare projection for getThreadProjection (fixture 71) and a typed error for an unknown thread (72)", async () => {
    const { model } = await captureSession();
    const outcome = await model.callUnary("orchestration.getThreadProjection", { threadId: T1 });
    expect(outcome.kind).toBe("success");
    const expected = fixtureExit("71-ws-getThreadProjection.json").value;
    expect(keysOf((outcome as { value: unknown }).value)).toEqual(keysOf(expected));
    const unknown = "7c363610-bbd7-4497-9fd6-04d477a636cc";
    const failure = await model.callUnary("orchestration.getThreadProjection", { threadId: unknown });
    expect(failure).toEqual({
      kind: "fail",
      error: fixtureExit("72-ws-getThreadProjection-unknown.json").cause[0].error,
    });
  });

  it("builds shell rows with the key set and value types of fixtures 40 and 90", async () => {
    const { model } = await captureSession();
    const shell = (model.httpShell() as { body: Json }).body;
    const expected = fixture("90-http-shell-final.json").response.body;
    expect(keysOf(shell)).toEqual(keysOf(expected));
    expect(shell.schemaVersion).toBe(2);
    const row = shell.threads.find((t: Json) => t.id === T1);
    const expectedRow = expected.threads.find((t: Json) => t.id === T1);
    expect(shapeOf(row)).toEqual(shapeOf(expectedRow));
    expect(row.status).toBe("interrupted");
    expect(row.activeRunId).toBeNull();
    expect(shapeOf(shell.projects[0])).toEqual(shapeOf(expected.projects[0]));
  });

  it("keeps a stalled run starting with the attempt pending, like fixtures 22 and 91", async () => {
    const { model, clock } = makeModel();
    model.addProject({ id: PROJECT, title: "fixtures", workspaceRoot: "/home/dev/code/fixtures" });
    const create = fixture("20-ws-dispatch-thread-create-6.json").request.ws_frames_sent[0].frame.payload;
    await model.callUnary("orchestration.dispatchCommand", create);
    const message = fixture("21b-ws-dispatch-message-start-immediately-t6.json").request.ws_frames_sent[0]
      .frame.payload;
    await model.callUnary("orchestration.dispatchCommand", {
      ...message,
      text: `${message.text} [[sim:stall]]`,
    });
    clock.advance(40_000);
    const expected = fixture("91-http-thread-t6-final.json").response.body;
    const body = (model.httpThread(create.threadId) as { body: Json }).body;
    expect(shapeOf(body)).toEqual(shapeOf(expected));
    expect(body.projection.runs[0].status).toBe("starting");
    expect(body.projection.attempts[0].status).toBe("pending");
    const row = (model.httpShell() as { body: Json }).body.threads[0];
    expect([row.status, row.activityRunStatus, row.lastError]).toEqual(["starting", "starting", null]);
    expect(row.activeRunId).toBe(body.projection.runs[0].id);
  });

  it("commits a message.dispatch as the seven events of fixture 37, with the same envelopes", async () => {
    const { threadSink } = await captureSession();
    const expectedFrames = fixture("37-ws-subscribeThread-t1-during-commands.json").response
      .ws_frames_received;
    const expectedDispatch = expectedFrames[2].frame.values;
    const dispatchEmit = threadSink.emits[2] as Json[];
    expect(dispatchEmit.map((v) => v.event.type)).toEqual(expectedDispatch.map((v: Json) => v.event.type));
    dispatchEmit.forEach((value, index) => {
      expect(shapeOf(value)).toEqual(shapeOf(expectedDispatch[index]));
    });
    const interruptEmit = threadSink.emits.at(-1) as Json[];
    const expectedInterrupt = expectedFrames.at(-2).frame.values;
    expect(interruptEmit.map((v) => v.event.type)).toEqual(expectedInterrupt.map((v: Json) => v.event.type));
    expect(interruptEmit.map((v) => shapeOf(v))).toEqual(expectedInterrupt.map((v: Json) => shapeOf(v)));
  });

  it("replays the thread's stored events like fixture 56, one event per emit, same types and shapes", async () => {
    const { model } = await captureSession();
    const sink = new CaptureSink();
    model.openStream(
      "orchestration.subscribeThread",
      { threadId: T1, afterSequence: 0, requestCompletionMarker: true },
      sink,
    );
    const expected = fixture("56-ws-subscribeThread-afterSequence.json")
      .response.ws_frames_received.filter((f: Json) => f.frame._tag === "Chunk")
      .map((f: Json) => f.frame.values);
    // The capture also holds two later commands (sequences 41, 42) this session does not send.
    const comparable = expected.filter(
      (values: Json[]) => values[0].kind !== "event" || values[0].sequence <= 37,
    );
    expect(sink.emits.map((values) => values.length)).toEqual(
      comparable.map((values: Json[]) => values.length),
    );
    expect(sink.items.map((v: Json) => v.event?.type ?? v.kind)).toEqual(
      comparable.map((values: Json[]) => values[0].event?.type ?? values[0].kind),
    );
    sink.items.forEach((value: Json, index: number) => {
      expect(shapeOf(value), value.event?.type).toEqual(shapeOf(comparable[index][0]));
    });
  });

  it("streams the shell like fixture 36: snapshot pair, marker, one thread.updated per command", async () => {
    const { shellSink } = await captureSession();
    const [first, second, ...live] = shellSink.emits as Json[][];
    expect(first?.map((v) => keysOf(v))).toEqual([
      ["kind", "snapshot"],
      ["kind", "resolvedRepositoryIdentityRoots", "snapshot"],
    ]);
    expect(first?.[1].resolvedRepositoryIdentityRoots).toEqual(["/home/dev/code/fixtures"]);
    expect(second).toEqual([{ kind: "synchronized" }]);
    expect(live.every((emit) => emit.length === 1)).toBe(true);
    expect(live.map((emit) => emit[0].thread.status)).toEqual([
      "idle",
      "starting",
      "starting",
      "starting",
      "starting",
      "interrupted",
    ]);
    const expectedUpdate = fixture("36-ws-subscribeShell-during-setup.json").response.ws_frames_received[2]
      .frame.values[0];
    expect(shapeOf(live[0]?.[0])).toEqual(shapeOf(expectedUpdate));
  });

  it("answers getConfig with the fixture 62 structure and ready providers with option descriptors", async () => {
    const { model } = makeModel();
    const outcome = await model.callUnary("server.getConfig", {});
    const config = (outcome as { value: Json }).value;
    const expected = fixtureExit("62-ws-server-getConfig.json").value;
    expect(keysOf(config)).toEqual(keysOf(expected));
    const codex = config.providers.find((p: Json) => p.instanceId === "codex");
    const claude = config.providers.find((p: Json) => p.instanceId === "claudeAgent");
    const expectedClaude = expected.providers.find((p: Json) => p.instanceId === "claudeAgent");
    for (const key of keysOf(expectedClaude))
      if (key !== "versionAdvisory" && key !== "message") expect(codex).toHaveProperty(key);
    expect([codex.installed, codex.status, claude.installed, claude.status]).toEqual([
      true,
      "ready",
      true,
      "ready",
    ]);
    const descriptors = codex.models[0].capabilities.optionDescriptors;
    expect(descriptors.map((d: Json) => [d.id, d.type])).toEqual([
      ["reasoningEffort", "select"],
      ["fastMode", "boolean"],
    ]);
    expect(claude.models[0].capabilities.optionDescriptors[0].id).toBe("effort");
    expect(shapeOf(claude.models[0].capabilities.optionDescriptors[0].options[0])).toEqual(
      shapeOf(expectedClaude.models[0].capabilities.optionDescriptors[0].options[0]),
    );
    expect(await model.callUnary("server.probe", {})).toEqual({
      kind: "success",
      value: fixtureExit("63-ws-server-probe.json").value,
    });
  });

  it("reports the descriptor with and without the protocol field", () => {
    const transitional = makeModel({ transitional: true }).model.descriptor();
    expect(keysOf(transitional)).toEqual(keysOf(fixture("01-http-descriptor.json").response.body));
    expect(transitional.serverVersion).toBe("0.0.31");
    expect(makeModel().model.descriptor().orchestrationProtocolVersion).toBe(2);
  });

  it("launches a thread like fixture 79", async () => {
    const { model } = makeModel();
    model.addProject({ id: PROJECT, title: "fixtures", workspaceRoot: "/home/dev/code/fixtures" });
    const payload = fixture("79-ws-launchThread-admin.json").request.ws_frames_sent[0].frame.payload;
    const outcome = await model.callUnary("orchestration.launchThread", payload);
    const expected = fixtureExit("79-ws-launchThread-admin.json").value;
    expect(shapeOf((outcome as { value: unknown }).value)).toEqual(shapeOf(expected));
    const again = await model.callUnary("orchestration.launchThread", payload);
    expect((again as { value: Json }).value.threadId).toBe(expected.threadId);
    expect(model.receivedCommands.filter((c) => c.commandId === payload.commandId)).toHaveLength(1);
  });

  it("answers the archived shell snapshot like fixture 70 and searchThreads like fixture 73", async () => {
    const { model } = await captureSession();
    const archive = fixture("20-ws-dispatch-thread-create-5.json").request.ws_frames_sent[0].frame.payload;
    await model.callUnary("orchestration.dispatchCommand", archive);
    await dispatch(model, { type: "thread.archive", threadId: archive.threadId });
    const snapshot = await model.callUnary("orchestration.getArchivedShellSnapshot", {});
    const expected = fixtureExit("70-ws-getArchivedShellSnapshot.json").value;
    expect(shapeOf((snapshot as { value: unknown }).value)).toEqual(shapeOf(expected));
    const search = await model.callUnary("orchestration.searchThreads", {
      query: "fixture capture",
      limit: 10,
    });
    expect(shapeOf((search as { value: unknown }).value)).toEqual(
      shapeOf(fixtureExit("73-ws-searchThreads.json").value),
    );
    expect(await model.callUnary("orchestration.searchThreads", { query: "x" })).toEqual({
      kind: "die",
      defect: fixtureExit("74-ws-searchThreads-query-too-short.json").cause[0].defect,
    });
  });

  it("fails diffs without checkpoints and workflow scripts like fixtures 75-77", async () => {
    const { model } = await captureSession();
    const turn = await model.callUnary("orchestration.getTurnDiff", {
      threadId: T1,
      fromTurnCount: 0,
      toTurnCount: 1,
    });
    expect(turn).toEqual({ kind: "fail", error: fixtureExit("75-ws-getTurnDiff.json").cause[0].error });
    const full = await model.callUnary("orchestration.getFullThreadDiff", { threadId: T1, toTurnCount: 1 });
    expect(full).toEqual({ kind: "fail", error: fixtureExit("76-ws-getFullThreadDiff.json").cause[0].error });
    const script = await model.callUnary("orchestration.getWorkflowScript", {
      threadId: T1,
      scriptPath: "/nonexistent/workflow.js",
    });
    const expected = fixtureExit("77-ws-getWorkflowScript-not-found.json").cause[0].error;
    expect(shapeOf((script as { error: unknown }).error)).toEqual(shapeOf(expected));
  });

  it("answers an unknown thread with the 404 body of fixture 43", () => {
    const { model } = makeModel();
    const outcome = model.httpThread("nope");
    const expected = fixture("43-http-thread-unknown-404.json").response;
    expect(outcome.kind === "error" && outcome.status).toBe(404);
    expect({ ...(outcome as { body: object }).body, traceId: "x" }).toEqual({
      ...expected.body,
      traceId: "x",
    });
    expect((outcome as { body: { traceId: string } }).body.traceId).toMatch(/^[0-9a-f]{32}$/);
  });

  it("answers the first frames of subscribeServerConfig and subscribeServerLifecycle like fixtures 80 and 81", () => {
    const { model, clock } = makeModel();
    const config = new CaptureSink();
    const opened = model.openStream("subscribeServerConfig", {}, config);
    expect(config.items.map((v) => v.type)).toEqual(["snapshot"]);
    clock.advance(200);
    expect(config.items.map((v) => v.type)).toEqual(["snapshot", "providerStatuses"]);
    expect(opened.kind === "open" && opened.handle.interruptExit).toEqual({ kind: "interrupt" });
    const lifecycle = new CaptureSink();
    const life = model.openStream("subscribeServerLifecycle", {}, lifecycle);
    const expected = fixture("81-ws-subscribeServerLifecycle.json").response.ws_frames_received[0].frame
      .values;
    expect(lifecycle.emits).toHaveLength(1);
    expect(lifecycle.items.map((v) => keysOf(v))).toEqual(expected.map((v: unknown) => keysOf(v)));
    expect(life.kind === "open" && life.handle.interruptExit?.kind).toBe("die");
  });
});
