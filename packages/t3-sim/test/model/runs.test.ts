/** The run engine and the dispatch modes of message.dispatch, driven by a manual SimClock. */
import { describe, expect, it } from "vitest";
import { SimClock } from "../../src/clock.js";
import { createEnvironmentModel, type SimEnvironmentModel } from "../../src/model/index.js";
import { dispatch, type Json, send, sequenceOf, withThread } from "./helpers.js";

const projection = (model: SimEnvironmentModel, threadId: string): Json =>
  model.getThread(threadId)?.projection;
const shell = (model: SimEnvironmentModel, threadId: string): Json => model.getThread(threadId)?.shell;
const runs = (model: SimEnvironmentModel, threadId: string): Json[] => projection(model, threadId).runs;
const items = (model: SimEnvironmentModel, threadId: string, type: string): Json[] =>
  projection(model, threadId).turnItems.filter((i: Json) => i.type === type);

describe("a scripted run", () => {
  it("goes starting → running → streaming reply → waiting → completed with a checkpoint", async () => {
    const { model, clock, threadId } = withThread();
    await send(model, threadId, "hello");
    expect(runs(model, threadId)[0].status).toBe("starting");
    expect(projection(model, threadId).attempts[0].status).toBe("pending");
    clock.advance(5);
    const running = projection(model, threadId);
    expect(running.runs[0].status).toBe("running");
    expect(running.attempts[0]).toMatchObject({ status: "running", providerTurnId: expect.any(String) });
    expect(running.providerSessions[0]).toMatchObject({ status: "running", model: "gpt-5.6-sol" });
    expect(running.providerTurns[0].status).toBe("running");
    clock.advance(15);
    expect(items(model, threadId, "assistant_message")[0]).toMatchObject({
      streaming: true,
      status: "running",
    });
    expect(projection(model, threadId).messages.at(-1)).toMatchObject({ role: "assistant", streaming: true });
    clock.advance(15);
    expect(items(model, threadId, "assistant_message")[0]).toMatchObject({
      streaming: false,
      status: "completed",
    });
    clock.advance(5);
    expect(runs(model, threadId)[0].status).toBe("waiting");
    expect(shell(model, threadId)).toMatchObject({
      status: "waiting",
      activeRunId: null,
      activityRunStatus: "waiting",
    });
    clock.advance(10);
    const done = projection(model, threadId);
    expect(done.runs[0]).toMatchObject({
      status: "completed",
      checkpointId: done.checkpoints[0].id,
      completedAt: expect.any(String),
    });
    expect(done.turnItems.map((i: Json) => i.type)).toEqual([
      "user_message",
      "assistant_message",
      "checkpoint",
    ]);
    const row = shell(model, threadId);
    expect(row).toMatchObject({
      status: "completed",
      activeRunId: null,
      activityRunStatus: null,
      latestRunCompletedAt: expect.any(String),
    });
    expect(row.latestVisibleMessage.role).toBe("assistant");
    expect(row.latestVisibleMessage.text).toContain("gpt-5.6-sol");
  });

  it("fails with an error item and lastError on [[sim:fail=...]]", async () => {
    const { model, clock, threadId } = withThread();
    await send(model, threadId, "deploy [[sim:fail=quota exceeded]]");
    clock.advance(100);
    expect(runs(model, threadId)[0].status).toBe("failed");
    expect(items(model, threadId, "error")[0].failure).toEqual({
      class: "provider_error",
      message: "quota exceeded",
      code: null,
      retryable: false,
    });
    expect(shell(model, threadId)).toMatchObject({ status: "failed", lastError: "quota exceeded" });
  });

  it("asks a user_input question and resumes to completion when answered", async () => {
    const { model, clock, threadId } = withThread();
    await send(model, threadId, "refactor [[sim:ask]]");
    clock.advance(1_000);
    const request = projection(model, threadId).runtimeRequests[0];
    expect(request).toMatchObject({
      kind: "user_input",
      status: "pending",
      responseCapability: { type: "live" },
    });
    const item = items(model, threadId, "user_input_request")[0];
    expect(item.requestId).toBe(request.id);
    expect(item.questions[0].options[0]).toEqual(
      expect.objectContaining({ label: expect.any(String), description: expect.any(String) }),
    );
    expect(shell(model, threadId).pendingRuntimeRequest).toEqual({
      id: request.id,
      kind: "user_input",
      createdAt: request.createdAt,
    });
    expect(runs(model, threadId)[0].status).toBe("running");
    const answered = await dispatch(model, {
      type: "runtime-request.respond",
      threadId,
      requestId: request.id,
      answers: { scope: "tests" },
    });
    expect(answered.kind).toBe("success");
    expect(projection(model, threadId).runtimeRequests[0]).toMatchObject({
      status: "resolved",
      answers: { scope: "tests" },
    });
    expect(shell(model, threadId).pendingRuntimeRequest).toBeNull();
    clock.advance(1_000);
    expect(runs(model, threadId)[0].status).toBe("completed");
    const again = await dispatch(model, {
      type: "runtime-request.respond",
      threadId,
      requestId: request.id,
      answers: { scope: "all" },
    });
    expect(again).toMatchObject({
      kind: "fail",
      error: { _tag: "OrchestrationV2DispatchCommandError", commandType: "runtime-request.respond" },
    });
  });

  it("asks a command approval and resumes when a decision arrives", async () => {
    const { model, clock, threadId } = withThread();
    await send(model, threadId, "run tests [[sim:approval]]");
    clock.advance(1_000);
    const request = projection(model, threadId).runtimeRequests[0];
    expect(request).toMatchObject({ kind: "command", status: "pending" });
    const item = items(model, threadId, "approval_request")[0];
    expect(item).toMatchObject({
      requestId: request.id,
      requestKind: "command",
      prompt: expect.any(String),
    });
    expect(
      item.options.every((o: Json) => typeof o.decision === "string" && typeof o.label === "string"),
    ).toBe(true);
    const noDecision = await dispatch(model, {
      type: "runtime-request.respond",
      threadId,
      requestId: request.id,
      answers: {},
    });
    expect(noDecision.kind).toBe("fail");
    await dispatch(model, {
      type: "runtime-request.respond",
      threadId,
      requestId: request.id,
      decision: "accept",
    });
    clock.advance(1_000);
    expect(runs(model, threadId)[0].status).toBe("completed");
    expect(projection(model, threadId).runtimeRequests[0].decision).toBe("accept");
  });

  it("ends with an actionable proposed plan on [[sim:plan]]", async () => {
    const { model, clock, threadId } = withThread();
    await send(model, threadId, "plan the split [[sim:plan]]");
    clock.advance(1_000);
    expect(projection(model, threadId).plans[0]).toMatchObject({ kind: "proposed_plan", status: "active" });
    expect(items(model, threadId, "proposed_plan")).toHaveLength(1);
    expect(shell(model, threadId).hasActionableProposedPlan).toBe(true);
  });

  it("implements a proposed plan: the plan completes and the title comes from titleSeed", async () => {
    const { model, clock, project } = withThread();
    const threadId = model.addThread({ projectId: project.id, state: "proposed_plan" });
    clock.advance(1_000);
    const plan = projection(model, threadId).plans[0];
    expect(shell(model, threadId).hasActionableProposedPlan).toBe(true);
    await dispatch(model, {
      type: "message.dispatch",
      threadId,
      messageId: "implement-1",
      text: "Implement the plan.",
      attachments: [],
      createdBy: "user",
      creationSource: "web",
      sourcePlanRef: { threadId, planId: plan.id },
      dispatchMode: { type: "start_immediately" },
    });
    expect(projection(model, threadId).plans[0].status).toBe("completed");
    const fresh = model.addThread({ projectId: project.id, title: "Untitled" });
    await dispatch(model, {
      type: "message.dispatch",
      threadId: fresh,
      messageId: "seeded-1",
      text: "Write the release notes",
      attachments: [],
      createdBy: "user",
      creationSource: "web",
      titleSeed: "Release notes",
      dispatchMode: { type: "start_immediately" },
    });
    expect(shell(model, fresh).title).toBe("Release notes");
  });

  it("takes the [[sim:delay=MS]] time and follows a programmatic script over directives", async () => {
    const { model, clock, threadId } = withThread();
    await send(model, threadId, "slow [[sim:delay=2000]]");
    clock.advance(1_000);
    expect(runs(model, threadId)[0].status).toBe("running");
    clock.advance(1_100);
    expect(runs(model, threadId)[0].status).toBe("completed");
    model.scriptNextRun(threadId, { reply: "scripted reply", outcome: "complete" });
    await send(model, threadId, "ignored directive [[sim:fail]]");
    clock.advance(1_000);
    expect(runs(model, threadId)[1].status).toBe("completed");
    expect(projection(model, threadId).messages.at(-1).text).toBe("scripted reply");
  });

  it("runs until interrupted and then records the interrupt signal items", async () => {
    const { model, clock, threadId } = withThread();
    await send(model, threadId, "watch [[sim:hang]]");
    clock.advance(60_000);
    const run = runs(model, threadId)[0];
    expect(run.status).toBe("running");
    await dispatch(model, { type: "run.interrupt", threadId, runId: run.id, reason: "enough" });
    const after = projection(model, threadId);
    expect(after.runs[0].status).toBe("interrupted");
    expect(after.attempts[0].status).toBe("interrupted");
    expect(items(model, threadId, "run_interrupt_request")[0].message).toBe("enough");
    expect(items(model, threadId, "run_interrupt_result")[0]).toMatchObject({
      status: "interrupted",
      message: "Run interrupted",
    });
    expect(items(model, threadId, "assistant_message")[0].streaming).toBe(false);
    expect(shell(model, threadId).status).toBe("interrupted");
    const twice = await dispatch(model, { type: "run.interrupt", threadId, runId: run.id });
    expect(twice.kind).toBe("fail");
  });
});

describe("dispatch modes", () => {
  it("queues start_immediately and queue_after_active behind a busy run, then starts them in order keeping their ids", async () => {
    const { model, clock, threadId } = withThread();
    await send(model, threadId, "first [[sim:delay=1000]]");
    await send(model, threadId, "second", { type: "start_immediately" });
    await send(model, threadId, "third", { type: "queue_after_active" });
    const [first, second, third] = runs(model, threadId);
    expect([second.status, second.queuePosition, third.status, third.queuePosition]).toEqual([
      "queued",
      1,
      "queued",
      2,
    ]);
    expect(items(model, threadId, "user_message").map((i) => i.inputIntent)).toEqual([
      "turn_start",
      "queued_turn",
      "queued_turn",
    ]);
    const row = shell(model, threadId);
    expect([row.latestRunId, row.status, row.activeRunId, row.activityRunStatus]).toEqual([
      third.id,
      "queued",
      first.id,
      "starting",
    ]);
    // The first run completes at 1020 ms; the second starts at once and is running at 1025 ms.
    clock.advance(1_030);
    expect(runs(model, threadId).map((r) => r.status)).toEqual(["completed", "running", "queued"]);
    expect(runs(model, threadId)[1].id).toBe(second.id);
    expect(runs(model, threadId)[2].queuePosition).toBe(1);
    clock.advance(1_000);
    expect(runs(model, threadId).map((r) => r.status)).toEqual(["completed", "completed", "completed"]);
  });

  it("steers only a running run: the message joins it with inputIntent steer", async () => {
    const { model, clock, threadId } = withThread();
    await send(model, threadId, "work [[sim:hang]]");
    const target = runs(model, threadId)[0];
    const tooEarly = await send(model, threadId, "steer", { type: "steer_active", targetRunId: target.id });
    expect(tooEarly).toMatchObject({ kind: "fail", error: { commandType: "message.dispatch" } });
    clock.advance(100);
    const steered = await send(model, threadId, "focus on tests", {
      type: "steer_active",
      targetRunId: target.id,
    });
    expect(steered.kind).toBe("success");
    expect(runs(model, threadId)).toHaveLength(1);
    const steer = items(model, threadId, "user_message").at(-1);
    expect(steer).toMatchObject({ inputIntent: "steer", runId: target.id, text: "focus on tests" });
  });

  it("restarts the active run with a new attempt and supersedes the old one", async () => {
    const { model, clock, threadId } = withThread();
    await send(model, threadId, "work [[sim:hang]]");
    clock.advance(100);
    const target = runs(model, threadId)[0];
    await send(model, threadId, "start over", { type: "restart_active", targetRunId: target.id });
    const attempts = projection(model, threadId).attempts;
    expect(attempts.map((a: Json) => [a.attemptOrdinal, a.reason, a.status])).toEqual([
      [1, "initial", "superseded"],
      [2, "steering_restart", "pending"],
    ]);
    expect(runs(model, threadId)[0]).toMatchObject({ id: target.id, activeAttemptId: attempts[1].id });
    clock.advance(1_000);
    expect(runs(model, threadId)[0].status).toBe("completed");
  });

  it("defers a run until prepared-run.release", async () => {
    const { model, clock, threadId } = withThread();
    await send(model, threadId, "later", { type: "defer_start" });
    const run = runs(model, threadId)[0];
    expect(run.status).toBe("preparing");
    clock.advance(1_000);
    expect(runs(model, threadId)[0].status).toBe("preparing");
    await dispatch(model, { type: "prepared-run.release", threadId, runId: run.id });
    clock.advance(1_000);
    expect(runs(model, threadId)[0]).toMatchObject({ id: run.id, status: "completed" });
  });

  it("holds the queue on run.interrupt {holdQueue:true} until queue.resume", async () => {
    const { model, clock, threadId } = withThread();
    await send(model, threadId, "work [[sim:hang]]");
    await send(model, threadId, "next");
    const [active, queued] = runs(model, threadId);
    expect((await dispatch(model, { type: "queue.resume", threadId })).kind).toBe("fail");
    await dispatch(model, { type: "run.interrupt", threadId, runId: active.id, holdQueue: true });
    clock.advance(1_000);
    expect(runs(model, threadId)[1]).toMatchObject({ id: queued.id, status: "queued", queueHeld: true });
    await dispatch(model, { type: "queue.resume", threadId });
    clock.advance(1_000);
    expect(runs(model, threadId)[1].status).toBe("completed");
    expect(runs(model, threadId)[1].queueHeld).toBeUndefined();
  });

  it("starts the queue right after a plain interrupt", async () => {
    const { model, threadId } = withThread();
    await send(model, threadId, "work [[sim:hang]]");
    await send(model, threadId, "next");
    await dispatch(model, { type: "run.interrupt", threadId, runId: runs(model, threadId)[0].id });
    expect(runs(model, threadId).map((r) => r.status)).toEqual(["interrupted", "starting"]);
  });

  it("records what agents were set to do, each in the mode its turn started in (agentWork)", async () => {
    const { model, clock, threadId } = withThread();
    await dispatch(model, { type: "thread.runtime-mode.set", threadId, runtimeMode: "approval-required" });
    await send(model, threadId, "work [[sim:hang]]");
    await send(model, threadId, "queued follow-up");
    clock.advance(100);
    const [active, queued] = runs(model, threadId);
    // The mode changes while the turn runs: the running turn keeps the mode it started in.
    await dispatch(model, { type: "thread.runtime-mode.set", threadId, runtimeMode: "full-access" });
    await send(model, threadId, "steer it", { type: "steer_active", targetRunId: active.id });
    await dispatch(model, {
      type: "queued-run.edit",
      threadId,
      runId: queued.id,
      text: "edited [[sim:fail]]",
    });
    await dispatch(model, { type: "run.interrupt", threadId, runId: active.id });
    clock.advance(200);
    expect(model.agentWork.map((work) => [work.runId, work.kind, work.runtimeMode])).toEqual([
      [active.id, "turn_started", "approval-required"],
      [active.id, "steered", "approval-required"],
      [queued.id, "turn_started", "full-access"],
    ]);
    // The edited text is what ran: its directive failed the run.
    expect(runs(model, threadId)[1].status).toBe("failed");
  });

  it("records a released prepared run and an answered request", async () => {
    const { model, clock, threadId } = withThread();
    await send(model, threadId, "prepare first", { type: "defer_start" });
    const [prepared] = runs(model, threadId);
    expect(model.agentWork).toEqual([]);
    await dispatch(model, { type: "prepared-run.release", threadId, runId: prepared.id });
    expect(model.agentWork.map((work) => work.kind)).toEqual(["turn_started"]);
    await send(model, threadId, "then ask [[sim:approval]]");
    clock.advance(200);
    const request = projection(model, threadId).runtimeRequests.find((r: Json) => r.status === "pending");
    await dispatch(model, {
      type: "runtime-request.respond",
      threadId,
      requestId: request.id,
      decision: "accept",
    });
    expect(model.agentWork.map((work) => [work.kind, work.runtimeMode])).toEqual([
      ["turn_started", "full-access"],
      ["turn_started", "full-access"],
      ["resumed", "full-access"],
    ]);
  });

  it("cancels, reorders, edits and promotes queued runs", async () => {
    const { model, clock, threadId } = withThread();
    await send(model, threadId, "work [[sim:hang]]");
    await send(model, threadId, "a");
    await send(model, threadId, "b");
    await send(model, threadId, "c");
    clock.advance(100);
    const [active, a, b, c] = runs(model, threadId);
    await dispatch(model, { type: "queued-run.reorder", threadId, runId: c.id, beforeRunId: a.id });
    expect(runs(model, threadId).map((r) => r.queuePosition)).toEqual([null, 2, 3, 1]);
    await dispatch(model, { type: "queued-run.edit", threadId, runId: a.id, text: "a, edited" });
    expect(projection(model, threadId).messages.find((m: Json) => m.id === a.userMessageId).text).toBe(
      "a, edited",
    );
    await dispatch(model, { type: "queued-run.cancel", threadId, runId: b.id });
    expect(runs(model, threadId)[2]).toMatchObject({ status: "cancelled", queuePosition: null });
    await dispatch(model, {
      type: "queued-message.promote-to-steer",
      threadId,
      queuedRunId: c.id,
      targetRunId: active.id,
    });
    expect(runs(model, threadId)[3].status).toBe("cancelled");
    expect(items(model, threadId, "user_message").find((i) => i.messageId === c.userMessageId)).toMatchObject(
      {
        inputIntent: "promoted_queued_to_steer",
        runId: active.id,
      },
    );
    expect(runs(model, threadId)[1].queuePosition).toBe(1);
  });

  it("dismisses only questions answered by message", async () => {
    const { model, clock, threadId } = withThread();
    await send(model, threadId, "q [[sim:ask]]");
    clock.advance(100);
    const live = projection(model, threadId).runtimeRequests[0];
    expect(
      (await dispatch(model, { type: "thread.user-input.dismiss", threadId, requestId: live.id })).kind,
    ).toBe("fail");
    await dispatch(model, { type: "run.interrupt", threadId, runId: runs(model, threadId)[0].id });
    expect(projection(model, threadId).runtimeRequests[0].status).toBe("cancelled");
    await send(model, threadId, "q2 [[sim:ask-message]]");
    clock.advance(1_000);
    expect(runs(model, threadId)[1].status).toBe("completed");
    const byMessage = projection(model, threadId).runtimeRequests[1];
    expect(byMessage).toMatchObject({ status: "pending", responseCapability: { type: "message" } });
    await dispatch(model, { type: "thread.user-input.dismiss", threadId, requestId: byMessage.id });
    expect(projection(model, threadId).runtimeRequests[1].status).toBe("cancelled");
  });
});

describe("sequences", () => {
  it("share one application-wide counter; a thread snapshot carries the thread's own latest sequence", async () => {
    const { model, project, threadId } = withThread();
    const other = model.addThread({ projectId: project.id, title: "other" });
    const mine = sequenceOf(await dispatch(model, { type: "thread.pin", threadId }));
    const theirs = sequenceOf(await dispatch(model, { type: "thread.pin", threadId: other }));
    expect(theirs).toBeGreaterThan(mine);
    expect((model.httpThread(threadId) as { body: Json }).body.snapshotSequence).toBe(mine);
    expect((model.httpShell() as { body: Json }).body.snapshotSequence).toBe(theirs);
  });

  it("commit a command's events together under consecutive sequences ending at the returned one", async () => {
    const { model, threadId } = withThread();
    const sequence = sequenceOf(await send(model, threadId, "hi"));
    const commandId = model.receivedCommands.at(-1)?.commandId;
    const events = model.getThread(threadId)?.events.filter((e) => e.commandId === commandId) ?? [];
    expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => sequence - events.length + 1 + i));
  });
});

describe("on a real clock", () => {
  it("plays the default script by itself and reports completion on the shell stream", async () => {
    const clock = new SimClock({ mode: "real" });
    const model = createEnvironmentModel({ environmentId: "env-real", label: "real", clock, seed: "empty" });
    try {
      const project = model.addProject({ title: "p", workspaceRoot: "/tmp" });
      const threadId = model.addThread({ projectId: project.id });
      const completed = new Promise<Json>((resolve) => {
        model.openStream(
          "orchestration.subscribeShell",
          {},
          {
            emit: (values) => {
              for (const value of values as Json[]) {
                if (value.kind === "thread.updated" && value.thread.status === "completed")
                  resolve(value.thread);
              }
            },
            end: () => {},
          },
        );
      });
      await send(model, threadId, "hello in real time");
      const row = await completed;
      expect(row.latestVisibleMessage.role).toBe("assistant");
    } finally {
      clock.dispose();
    }
  });
});
