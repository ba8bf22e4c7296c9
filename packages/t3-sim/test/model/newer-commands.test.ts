/**
 * Current upstream's newer commands, events and states (docs/t3-protocol-notes.md, "The five
 * newer command types"), and that the 0.0.31 profile keeps none of them.
 */
import { describe, expect, it } from "vitest";
import { SERVER_ONLY_COMMAND_TYPES } from "../../src/model/index.js";
import {
  dispatch,
  type Json,
  projectionOf,
  requestDelegatedTask,
  send,
  shellOf,
  withThread,
} from "./helpers.js";

const PR = { host: "github.com", repository: "acme/widgets", number: 7 };

function eventTypesSince(model: Json, threadId: string, sequence: number): string[] {
  return model
    .getThread(threadId)
    .events.filter((stored: Json) => stored.sequence > sequence)
    .map((stored: Json) => stored.event.type);
}

function failureOf(outcome: Json): Json {
  expect(outcome.kind).toBe("fail");
  return outcome.error;
}

/** The innermost `cause` of a typed dispatch failure: where the orchestrator error sits. */
function innermost(error: Json): Json {
  let cause = error.cause;
  while (cause?.cause && typeof cause.cause === "object") cause = cause.cause;
  return cause;
}

describe("prepared-run.retry", () => {
  it("puts a failed workspace preparation back to preparing and reopens its item without output", async () => {
    const { model, project } = withThread();
    const threadId = model.addThread({ projectId: project.id, state: "preparation_failed" });
    const failed: Json = projectionOf(model, threadId).runs[0];
    expect(failed.status).toBe("failed");
    const prepare = (p: Json) => p.turnItems.find((item: Json) => item.title === "Preparing workspace");
    expect(prepare(projectionOf(model, threadId))).toMatchObject({ status: "failed", exitCode: 1 });
    const error = projectionOf(model, threadId).turnItems.find((item: Json) => item.type === "error");
    expect(error.failure.code).toBe("workspace_preparation_failed");

    const before = model.sequence;
    const outcome = await dispatch(model, { type: "prepared-run.retry", threadId, runId: failed.id });
    expect(outcome.kind).toBe("success");
    expect(eventTypesSince(model, threadId, before)).toEqual(["run.updated", "turn-item.updated"]);
    expect(projectionOf(model, threadId).runs[0]).toMatchObject({ status: "preparing", completedAt: null });
    const reopened = model.getThread(threadId)?.events.at(-1)?.event.payload as Json;
    expect(reopened).toMatchObject({ type: "command_execution", status: "running" });
    expect(reopened).not.toHaveProperty("output");
    expect(reopened).not.toHaveProperty("exitCode");
    expect(shellOf(model, threadId).status).toBe("preparing");

    // A second failure is prepared-run.fail again.
    const again = await dispatch(model, {
      type: "prepared-run.fail",
      threadId,
      runId: failed.id,
      failure: { class: "unknown", message: "still broken", code: null, retryable: true },
    });
    expect(again.kind).toBe("success");
    expect(projectionOf(model, threadId).runs[0].status).toBe("failed");
  });

  it("refuses a run that did not fail its preparation, changing nothing", async () => {
    const { model, project } = withThread();
    const threadId = model.addThread({ projectId: project.id, state: "failed" });
    const run: Json = projectionOf(model, threadId).runs[0];
    const before = model.sequence;
    const error = failureOf(await dispatch(model, { type: "prepared-run.retry", threadId, runId: run.id }));
    expect(error._tag).toBe("OrchestrationV2DispatchCommandError");
    expect(innermost(error).name).toBe("OrchestratorCommandRejectedError");
    expect(model.sequence).toBe(before);
  });
});

describe("thread.pull-request.watch", () => {
  it("links an unlinked pull request and watches it in one command, as a whole-thread event", async () => {
    const { model, threadId } = withThread();
    const before = model.sequence;
    const outcome = await dispatch(model, {
      type: "thread.pull-request.watch",
      threadId,
      ...PR,
      watching: true,
      link: { url: "https://github.com/acme/widgets/pull/7", source: "manual" },
    });
    expect(outcome.kind).toBe("success");
    expect(eventTypesSince(model, threadId, before)).toEqual(["thread.pull-request-synced"]);
    const row = shellOf(model, threadId);
    expect(row.pullRequests).toEqual([
      expect.objectContaining({
        ...PR,
        source: "manual",
        watch: {
          startedAt: expect.any(String),
          headSha: null,
          failedChecks: [],
          passed: false,
          passedChecks: [],
          remarksThrough: null,
          remarkIds: [],
          conflicting: false,
          wakes: 0,
        },
      }),
    ]);
    await dispatch(model, { type: "thread.pull-request.watch", threadId, ...PR, watching: false });
    expect(shellOf(model, threadId).pullRequests[0].watch).toBeNull();
  });

  it("refuses an unlinked pull request without a link, and one that is no longer open", async () => {
    const { model, threadId } = withThread();
    const unlinked = failureOf(
      await dispatch(model, { type: "thread.pull-request.watch", threadId, ...PR, watching: true }),
    );
    expect(unlinked.message).toMatch(/not linked/);
    await dispatch(model, {
      type: "thread.pull-request.link",
      threadId,
      ...PR,
      url: "https://github.com/acme/widgets/pull/7",
      source: "manual",
    });
    await dispatch(model, {
      type: "thread.pull-request-link.sync",
      threadId,
      ...PR,
      snapshot: {
        state: "merged",
        title: "Widgets",
        headBranch: "feature",
        baseBranch: "main",
        isDraft: false,
        updatedAt: "2026-12-02T12:00:00.000Z",
        syncedAt: "2026-12-02T12:00:01.000Z",
      },
      stack: null,
    });
    const merged = failureOf(
      await dispatch(model, { type: "thread.pull-request.watch", threadId, ...PR, watching: true }),
    );
    expect(merged.message).toMatch(/merged/);
  });
});

describe("the server-only sync commands", () => {
  it("are decoded and applied, and named as server-only", async () => {
    expect(SERVER_ONLY_COMMAND_TYPES).toEqual([
      "thread.pull-request-link.sync",
      "thread.pull-request.sync",
      "notification.delivery.accept",
    ]);
    const { model, threadId, project } = withThread();
    const notLinked = failureOf(
      await dispatch(model, {
        type: "thread.pull-request-link.sync",
        threadId,
        ...PR,
        snapshot: {
          state: "open",
          title: "Widgets",
          headBranch: "feature",
          baseBranch: "main",
          isDraft: false,
          updatedAt: "2026-12-02T12:00:00.000Z",
          syncedAt: "2026-12-02T12:00:01.000Z",
        },
        stack: null,
      }),
    );
    expect(notLinked.message).toMatch(/not linked/);

    const branchPullRequest = {
      projectId: project.id,
      repository: "acme/widgets",
      number: 9,
      url: "https://github.com/acme/widgets/pull/9",
    };
    const expected = {
      workspaceRoot: project.workspaceRoot,
      branch: null,
      worktreePath: null,
      linkedPullRequest: null,
      branchPullRequest: null,
    };
    const stale = failureOf(
      await dispatch(model, {
        type: "thread.pull-request.sync",
        threadId,
        projectId: project.id,
        snapshotSequence: model.sequence,
        expected: { ...expected, branch: "elsewhere" },
        branchPullRequest,
      }),
    );
    expect(stale.message).toMatch(/changed \(branch\)/);
    const before = model.sequence;
    const synced = await dispatch(model, {
      type: "thread.pull-request.sync",
      threadId,
      projectId: project.id,
      snapshotSequence: model.sequence,
      expected,
      branchPullRequest,
    });
    expect(synced.kind).toBe("success");
    expect(eventTypesSince(model, threadId, before)).toEqual(["thread.pull-request-synced"]);
    expect(projectionOf(model, threadId).thread.branchPullRequest).toEqual(branchPullRequest);
  });

  it("marks a delegated completion delivered once, and a repeat changes nothing", async () => {
    const { model, clock, threadId } = withThread();
    const parentRun: Json = await requestDelegatedTask({ model, clock, threadId }, "full-access");
    const task: Json = projectionOf(model, threadId).subagents[0];
    await dispatch(model, {
      type: "message.dispatch",
      threadId,
      messageId: "completion-1",
      text: "The task finished.",
      attachments: [],
      createdBy: "system",
      creationSource: "server",
      delegatedCompletion: { parentRunId: parentRun.id, generation: 1, taskIds: [task.id] },
      dispatchMode: { type: "queue_after_active" },
    });
    const before = model.sequence;
    const accept = { type: "notification.delivery.accept", threadId, messageId: "completion-1" };
    expect((await dispatch(model, accept)).kind).toBe("success");
    expect(eventTypesSince(model, threadId, before)).toEqual(["subagent.updated", "run.updated"]);
    expect(projectionOf(model, threadId).subagents[0].completionDelivery.state).toBe("delivered");
    const after = model.sequence;
    expect((await dispatch(model, accept)).kind).toBe("success");
    expect(model.sequence).toBe(after);
  });
});

describe("checkpoint.rollback on current upstream", () => {
  async function completedInWorktree(model: Json, projectId: string, worktreePath: string) {
    const threadId = model.addThread({ projectId, state: "completed" });
    await dispatch(model, { type: "thread.metadata.update", threadId, worktreePath });
    const checkpoint: Json = projectionOf(model, threadId).checkpoints[0];
    return { threadId, checkpoint };
  }

  it("records the rollback on the thread, then requests it", async () => {
    const { model, project } = withThread();
    const { threadId, checkpoint } = await completedInWorktree(model, project.id, "/srv/wt/a");
    const before = model.sequence;
    const outcome = await dispatch(model, {
      type: "checkpoint.rollback",
      commandId: "rollback-1",
      threadId,
      scopeId: checkpoint.scopeId,
      checkpointId: checkpoint.id,
      restoreFiles: true,
    });
    expect(outcome.kind).toBe("success");
    expect(eventTypesSince(model, threadId, before).slice(0, 2)).toEqual([
      "thread.metadata-updated",
      "checkpoint.rollback-requested",
    ]);
    expect(projectionOf(model, threadId).thread).toMatchObject({
      rollbackRequestId: "rollback-1",
      rollbackFailure: null,
    });
  });

  it("refuses to restore files in a worktree another thread shares, but rolls back the conversation alone", async () => {
    const { model, project } = withThread();
    const { threadId, checkpoint } = await completedInWorktree(model, project.id, "/srv/wt/shared");
    const other = model.addThread({ projectId: project.id });
    await dispatch(model, {
      type: "thread.metadata.update",
      threadId: other,
      worktreePath: "/srv/wt/shared",
    });
    const target = { threadId, scopeId: checkpoint.scopeId, checkpointId: checkpoint.id };
    const before = model.sequence;
    const refused = failureOf(await dispatch(model, { type: "checkpoint.rollback", ...target }));
    expect(refused.message).toMatch(/shares its workspace/);
    expect(model.sequence).toBe(before);
    const conversationOnly = await dispatch(model, {
      type: "checkpoint.rollback",
      ...target,
      restoreFiles: false,
    });
    expect(conversationOnly.kind).toBe("success");
  });
});

describe("typed orchestrator errors (unverified rendering, orchestrator-errors.ts)", () => {
  it("refuses a message to a provider-native subagent thread as read-only", async () => {
    const { model, project } = withThread();
    const child = model.addThread({ projectId: project.id, creationSource: "provider" });
    const record: Json = model.store.threads.get(child);
    record.thread = {
      ...record.thread,
      lineage: { parentThreadId: "thread-1", relationshipToParent: "subagent", rootThreadId: "thread-1" },
    };
    const error = failureOf(await send(model, child, "hello"));
    expect(error).toMatchObject({
      _tag: "OrchestrationV2DispatchCommandError",
      commandType: "message.dispatch",
    });
    expect(innermost(error)).toMatchObject({
      name: "OrchestratorSubagentThreadReadOnlyError",
      threadId: child,
    });
  });

  it("refuses a delegated task's thread a runtime mode above its parent's", async () => {
    const { model, clock, threadId } = withThread();
    await dispatch(model, { type: "thread.runtime-mode.set", threadId, runtimeMode: "auto" });
    await requestDelegatedTask({ model, clock, threadId }, "approval-required");
    const child: string = projectionOf(model, threadId).subagents[0].childThreadId;
    const error = failureOf(
      await dispatch(model, { type: "thread.runtime-mode.set", threadId: child, runtimeMode: "full-access" }),
    );
    expect(innermost(error)).toMatchObject({
      name: "OrchestratorThreadAboveModeLimitError",
      mode: "auto",
      runtimeMode: "full-access",
      interactionMode: "default",
    });
    const within = await dispatch(model, {
      type: "thread.runtime-mode.set",
      threadId: child,
      runtimeMode: "auto",
    });
    expect(within.kind).toBe("success");
  });

  it("names a repeat of a refused commandId previously rejected, with the first refusal as detail", async () => {
    const { model } = withThread();
    const command = { type: "thread.settle", commandId: "late-2", threadId: "no-such-thread" };
    const first = failureOf(await model.callUnary("orchestration.dispatchCommand", command));
    const again = failureOf(await model.callUnary("orchestration.dispatchCommand", command));
    expect(innermost(again)).toMatchObject({
      name: "OrchestratorCommandPreviouslyRejectedError",
      detail: first.message,
    });
  });
});

describe("secret requests and restart-cancelled background work", () => {
  it("shows a pending secret request on the shell row and its item until it is answered in T3", () => {
    const { model, threadId } = withThread();
    const requestId = model.requestSecret(threadId, { name: "GITHUB_TOKEN" });
    expect(shellOf(model, threadId).pendingSecretRequest).toEqual({
      id: requestId,
      name: "GITHUB_TOKEN",
      createdAt: expect.any(String),
    });
    const item = projectionOf(model, threadId).turnItems.find((i: Json) => i.type === "secret_request");
    expect(item).toMatchObject({ requestId, name: "GITHUB_TOKEN", secretStatus: "pending" });
    model.answerSecretRequest(threadId, requestId, "saved");
    expect(shellOf(model, threadId).pendingSecretRequest).toBeNull();
    expect(
      projectionOf(model, threadId).turnItems.find((i: Json) => i.type === "secret_request").secretStatus,
    ).toBe("saved");
  });

  it("records background work cancelled by a restart on the run, leaving its status alone", () => {
    const { model, project } = withThread();
    const threadId = model.addThread({ projectId: project.id, state: "completed" });
    const before = model.sequence;
    model.cancelBackgroundWorkOnRestart(threadId, [{ kind: "shell", label: "pnpm dev", id: "task-1" }]);
    const stored = model.getThread(threadId)?.events.at(-1)?.event as Json;
    expect(stored.type).toBe("run.background-work-cancelled");
    expect(stored.payload.restartCancelledBackgroundWork).toEqual([
      { kind: "shell", label: "pnpm dev", id: "task-1" },
    ]);
    expect(model.sequence).toBe(before + 1);
    expect(projectionOf(model, threadId).runs[0].status).toBe("completed");
  });
});

describe("the 0.0.31 profile", () => {
  it("decodes none of the five newer commands and keeps the older rollback and shell row", async () => {
    const { model, threadId } = withThread({ compat: "0.0.31" });
    for (const type of ["prepared-run.retry", "thread.pull-request.watch", ...SERVER_ONLY_COMMAND_TYPES]) {
      const outcome = await dispatch(model, { type, threadId, runId: "r", messageId: "m" });
      expect(outcome.kind).toBe("die");
    }
    expect(shellOf(model, threadId)).not.toHaveProperty("pendingSecretRequest");
  });
});
