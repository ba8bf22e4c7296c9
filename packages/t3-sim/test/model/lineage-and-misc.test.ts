/** Forks, merges, delegated tasks, metadata and the smaller commands; launches and projects. */
import { describe, expect, it } from "vitest";
import {
  dispatch,
  type Json,
  projectionOf,
  requestDelegatedTask,
  send,
  sequenceOf,
  shellOf,
  withThread,
} from "./helpers.js";

describe("thread relations", () => {
  it("forks a thread at its latest completed run with inherited timeline rows", async () => {
    const { model, clock, threadId } = withThread();
    await send(model, threadId, "first");
    clock.advance(1_000);
    const outcome = await dispatch(model, {
      type: "thread.fork",
      createdBy: "user",
      creationSource: "mcp",
      sourceThreadId: threadId,
      targetThreadId: "fork-1",
      sourcePoint: { type: "latest_stable" },
    });
    expect(outcome.kind).toBe("success");
    const fork: Json = projectionOf(model, "fork-1");
    expect(fork.thread.lineage).toEqual({
      parentThreadId: threadId,
      relationshipToParent: "fork",
      rootThreadId: threadId,
    });
    expect(fork.thread.forkedFrom).toMatchObject({ type: "run", threadId });
    const visibility = fork.visibleTurnItems.map((r: Json) => r.visibility);
    expect(visibility.slice(0, 3)).toEqual(["inherited", "inherited", "inherited"]);
    expect(visibility.at(-1)).toBe("local");
  });

  it("records a merge back as a context transfer on the target", async () => {
    const { model, project, threadId } = withThread();
    const other = model.addThread({ projectId: project.id });
    await dispatch(model, {
      type: "thread.merge_back",
      createdBy: "user",
      creationSource: "mcp",
      sourceThreadId: other,
      targetThreadId: threadId,
      sourcePoint: { type: "latest_stable" },
    });
    expect(projectionOf(model, threadId).contextTransfers).toEqual([
      expect.objectContaining({ type: "merge_back", sourceThreadId: other, targetThreadId: threadId }),
    ]);
  });

  it("runs a delegated task in a child thread and reports its outcome to the parent", async () => {
    const { model, clock, threadId } = withThread();
    const parentRun: Json = await requestDelegatedTask({ model, clock, threadId }, "full-access");
    const task: Json = projectionOf(model, threadId).subagents[0];
    expect(task).toMatchObject({ origin: "app_owned", status: "running", prompt: "Summarise the changelog" });
    expect(shellOf(model, task.childThreadId).lineage).toMatchObject({
      parentThreadId: threadId,
      relationshipToParent: "subagent",
    });
    clock.advance(1_000);
    const done: Json = projectionOf(model, threadId).subagents[0];
    expect(done).toMatchObject({ status: "completed", result: expect.stringContaining("claude-fable-5") });
    await dispatch(model, {
      type: "delegated_task.wake-policy",
      parentThreadId: threadId,
      taskId: task.id,
      completionWake: "always",
    });
    await dispatch(model, {
      type: "delegated_task.completion-delivery.acknowledge",
      parentThreadId: threadId,
      taskId: task.id,
      observedByRunId: parentRun.id,
    });
    const acknowledged: Json = projectionOf(model, threadId).subagents[0];
    expect(acknowledged).toMatchObject({
      completionWake: "always",
      completionDelivery: { state: "acknowledged", observedByRunId: parentRun.id },
    });
    await dispatch(model, {
      type: "delegated_task.completion-delivery.dispose",
      parentThreadId: threadId,
      taskId: task.id,
    });
    const missing = await dispatch(model, {
      type: "delegated_task.completion-delivery.dispose",
      parentThreadId: threadId,
      taskId: "nope",
    });
    expect(missing.kind).toBe("fail");
    await dispatch(model, {
      type: "thread.created.record",
      parentThreadId: threadId,
      parentRunId: parentRun.id,
      parentNodeId: parentRun.rootNodeId,
      targetThreadId: task.childThreadId,
      targetRunId: null,
    });
    const items = projectionOf(model, threadId).turnItems.map((i: Json) => i.type);
    expect(items).toContain("thread_created");
  });
});

describe("metadata and settings", () => {
  it("regenerates a title through titleRegeneration and clears it when the title lands", async () => {
    const { model, clock, threadId } = withThread();
    await send(model, threadId, "Rename the config loader");
    await dispatch(model, { type: "thread.metadata.update", threadId, regenerateTitle: true });
    expect(shellOf(model, threadId).titleRegeneration).toMatchObject({ requestId: expect.any(String) });
    clock.advance(50);
    expect(shellOf(model, threadId)).toMatchObject({
      titleRegeneration: null,
      title: "Rename the config loader",
    });
    const wrongWorktree = await dispatch(model, {
      type: "thread.metadata.update",
      threadId,
      title: "x",
      expectedWorktreePath: "/elsewhere",
    });
    expect(wrongWorktree.kind).toBe("fail");
  });

  it("changes the model within an instance, and switches instances only with provider.switch", async () => {
    const { model, threadId } = withThread();
    const cross = await dispatch(model, {
      type: "thread.model-selection.set",
      threadId,
      modelSelection: { instanceId: "claudeAgent", model: "claude-opus-5" },
    });
    expect(cross.kind).toBe("fail");
    await dispatch(model, {
      type: "thread.model-selection.set",
      threadId,
      modelSelection: {
        instanceId: "codex",
        model: "gpt-5.6-sol-mini",
        options: [{ id: "fastMode", value: true }],
      },
    });
    expect(shellOf(model, threadId).modelSelection.model).toBe("gpt-5.6-sol-mini");
    await dispatch(model, {
      type: "provider.switch",
      threadId,
      modelSelection: { provider: "claudeAgent", model: "claude-opus-5" },
    });
    expect(shellOf(model, threadId)).toMatchObject({
      providerInstanceId: "claudeAgent",
      modelSelection: { instanceId: "claudeAgent" },
    });
  });

  it("links and unlinks a pull request", async () => {
    const { model, threadId } = withThread();
    const link = { threadId, host: "github.com", repository: "acme/app", number: 7 };
    await dispatch(model, {
      type: "thread.pull-request.link",
      ...link,
      url: "https://github.com/acme/app/pull/7",
      source: "manual",
    });
    expect(shellOf(model, threadId).linkedPullRequest).toMatchObject({ repository: "acme/app", number: 7 });
    await dispatch(model, { type: "thread.pull-request.unlink", ...link });
    expect(shellOf(model, threadId).linkedPullRequest).toBeNull();
    expect((await dispatch(model, { type: "thread.pull-request.unlink", ...link })).kind).toBe("fail");
  });

  it("refuses auto-settle over an explicit override and rolls back to a checkpoint", async () => {
    const { model, clock, threadId } = withThread();
    await dispatch(model, { type: "thread.unsettle", threadId, reason: "user" });
    const auto = await dispatch(model, {
      type: "thread.auto-settle",
      threadId,
      snapshotAt: new Date(clock.now()).toISOString(),
    });
    expect(auto.kind).toBe("fail");
    await send(model, threadId, "one");
    clock.advance(1_000);
    await send(model, threadId, "two");
    clock.advance(1_000);
    const projection: Json = projectionOf(model, threadId);
    const first = projection.checkpoints[0];
    // From 1, not 0: 0.0.31 loses the ref before the first run once a second one starts (fixture 133).
    const turnDiff = await model.callUnary("orchestration.getTurnDiff", {
      threadId,
      fromTurnCount: 1,
      toTurnCount: 2,
    });
    expect(turnDiff).toMatchObject({
      kind: "success",
      value: { threadId, diff: expect.stringContaining("diff --git") },
    });
    await dispatch(model, {
      type: "checkpoint.rollback",
      threadId,
      scopeId: first.scopeId,
      checkpointId: first.id,
    });
    expect(projectionOf(model, threadId).runs.map((r: Json) => r.status)).toEqual([
      "completed",
      "rolled_back",
    ]);
    const session = projectionOf(model, threadId).providerSessions[0];
    await dispatch(model, { type: "provider-session.detach", threadId, providerSessionId: session.id });
    expect(projectionOf(model, threadId).providerSessions).toEqual([]);
    expect(model.getThread(threadId)?.events.at(-1)?.event.type).toBe("provider-session.detached");
  });

  it("resolves deliveryIntent auto to a steer while a run is running", async () => {
    const { model, clock, threadId } = withThread();
    await send(model, threadId, "work [[sim:hang]]");
    clock.advance(100);
    await dispatch(model, {
      type: "message.dispatch",
      threadId,
      messageId: "auto-1",
      text: "also this",
      attachments: [],
      createdBy: "user",
      creationSource: "mcp",
      dispatchMode: { type: "start_immediately" },
      deliveryIntent: "auto",
    });
    const projection: Json = projectionOf(model, threadId);
    expect(projection.runs).toHaveLength(1);
    expect(projection.turnItems.find((i: Json) => i.messageId === "auto-1").inputIntent).toBe("steer");
  });
});

describe("orchestration.launchThread", () => {
  it("launches with an initial message, resumes an existing thread and refuses an unknown project", async () => {
    const { model, clock, project, threadId } = withThread();
    const base = {
      projectId: project.id,
      title: "launched",
      modelSelection: { instanceId: "codex", model: "gpt-5.6-sol" },
      runtimeMode: "full-access",
      interactionMode: "default",
    };
    const launched = await model.callUnary("orchestration.launchThread", {
      ...base,
      commandId: "launch-1",
      threadId: "launched-1",
      workspaceStrategy: { type: "worktree", baseRef: "main", branch: "feature/x" },
      initialMessage: { text: "start", attachments: [] },
    });
    expect(launched).toMatchObject({ kind: "success", value: { threadId: "launched-1", resumed: false } });
    const value: Json = (launched as Json).value;
    expect(value.projection.thread).toMatchObject({
      branch: "feature/x",
      worktreePath: "/home/dev/code/fixtures/.t3/worktrees/feature/x",
    });
    expect(value.projection.runs[0].status).toBe("starting");
    clock.advance(1_000);
    expect(shellOf(model, "launched-1").status).toBe("completed");
    const resumed = await model.callUnary("orchestration.launchThread", {
      ...base,
      commandId: "launch-2",
      threadId,
      reuseExistingThread: true,
      workspaceStrategy: { type: "root" },
    });
    expect(resumed).toMatchObject({ kind: "success", value: { threadId, resumed: true } });
    const unknown = await model.callUnary("orchestration.launchThread", {
      ...base,
      projectId: "nope",
      commandId: "launch-3",
      workspaceStrategy: { type: "root" },
    });
    expect(unknown).toEqual({
      kind: "fail",
      error: {
        _tag: "OrchestrationV2ThreadLaunchError",
        commandId: "launch-3",
        projectId: "nope",
        message: "Project not found.",
      },
    });
    expect(model.receivedCommands.map((c) => c.commandId)).toEqual(["launch-1", "launch-2"]);
  });
});

describe("project mutations over HTTP", () => {
  it("updates, deletes a project with its threads whatever force says (capture 107), and dedupes by commandId", async () => {
    const { model, project, threadId } = withThread();
    const updated = model.httpProjectsMutate({
      type: "project.update",
      commandId: "u1",
      projectId: project.id,
      title: "renamed",
    });
    expect(updated).toMatchObject({ kind: "ok", body: { title: "renamed" } });
    const before = model.sequence;
    const deleted = model.httpProjectsMutate({
      type: "project.delete",
      commandId: "d1",
      projectId: project.id,
    });
    expect(deleted).toMatchObject({
      kind: "ok",
      body: { id: project.id, deletedAt: expect.any(String) },
    });
    expect(model.sequence).toBeGreaterThan(before);
    expect(
      model.httpProjectsMutate({
        type: "project.delete",
        commandId: "d1",
        projectId: project.id,
      }),
    ).toEqual(deleted);
    expect(
      model.httpProjectsMutate({
        type: "project.delete",
        commandId: "d2",
        projectId: project.id,
        force: true,
      }),
    ).toMatchObject({ kind: "error", status: 500, body: { reason: "project_mutation_failed" } });
    expect(model.httpThread(threadId)).toMatchObject({ status: 404 });
    expect(model.httpProjectsMutate({ type: "project.explode" })).toMatchObject({
      kind: "error",
      status: 400,
    });
    expect(sequenceOf({ kind: "success", value: { sequence: 1 } })).toBe(1);
  });
});
