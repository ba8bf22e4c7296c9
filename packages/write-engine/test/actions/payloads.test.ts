/**
 * The payload each action sends, written out by hand from T3's V2 command and launch contracts. A wrong
 * field name here would otherwise reach a real T3 server.
 */
import { describe, expect, it } from "vitest";
import {
  ACTIONS,
  type ActionId,
  type BuiltPayload,
  type DerivedIds,
  deriveIds,
  getAction,
  prepareAction,
  SAMPLE_INPUTS,
} from "../../src/actions/index.js";

const KEY = "5f1c0e1d2a3b4c5d6e7f80910a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d";
const T = "0798fcf8-49d7-4821-812e-7cdce591eed0";
const T2 = "b7140cce-94f5-4f8b-82d5-5f8f67f9fbfa";
const P = "d21e26bb-47ea-4b08-a81f-0abce1f8f482";
const R1 = `run:thread:${T}:ordinal:1`;
const R2 = `run:thread:${T}:ordinal:2`;
const MCP = { createdBy: "user", creationSource: "mcp" };

function cmd(type: string, ids: DerivedIds, fields: Record<string, unknown>): BuiltPayload {
  return { kind: "dispatch", command: { type, commandId: ids.commandId, ...fields } };
}

const EXPECTED: Record<ActionId, (ids: DerivedIds) => BuiltPayload> = {
  "thread.archive": (ids) => cmd("thread.archive", ids, { threadId: T }),
  "thread.unarchive": (ids) => cmd("thread.unarchive", ids, { threadId: T }),
  "thread.delete": (ids) => cmd("thread.delete", ids, { threadId: T }),
  "thread.settle": (ids) => cmd("thread.settle", ids, { threadId: T }),
  "thread.pin": (ids) => cmd("thread.pin", ids, { threadId: T }),
  "thread.unpin": (ids) => cmd("thread.unpin", ids, { threadId: T }),
  "thread.unsnooze": (ids) => cmd("thread.unsnooze", ids, { threadId: T, reason: "user" }),
  "thread.mark-unread": (ids) => cmd("thread.mark-unread", ids, { threadId: T }),
  "thread.unsettle": (ids) => cmd("thread.unsettle", ids, { threadId: T, reason: "user" }),
  "thread.snooze": (ids) =>
    cmd("thread.snooze", ids, { threadId: T, snoozedUntil: "2026-12-03T13:01:50.660Z" }),
  "thread.auto-settle.set": (ids) => cmd("thread.auto-settle.set", ids, { threadId: T, enabled: false }),
  "thread.pin.reorder": (ids) => cmd("thread.pin.reorder", ids, { threadId: T, orderKey: "a1" }),
  "thread.active.reorder": (ids) => cmd("thread.active.reorder", ids, { threadId: T, orderKey: "a0V" }),
  "thread.visit": (ids) => cmd("thread.visit", ids, { threadId: T, visitedAt: "2026-12-02T13:00:00.000Z" }),
  "thread.title": (ids) =>
    cmd("thread.metadata.update", ids, { threadId: T, title: "fixture: renamed thread" }),
  "thread.runtime-mode.set": (ids) =>
    cmd("thread.runtime-mode.set", ids, { threadId: T, runtimeMode: "approval-required" }),
  "thread.interaction-mode.set": (ids) =>
    cmd("thread.interaction-mode.set", ids, { threadId: T, interactionMode: "plan" }),
  "thread.model-selection.set": (ids) =>
    cmd("thread.model-selection.set", ids, {
      threadId: T,
      modelSelection: {
        instanceId: "claudeAgent",
        model: "claude-opus-5",
        options: [
          { id: "fastMode", value: true },
          { id: "effort", value: "max" },
        ],
      },
    }),
  "provider.switch": (ids) =>
    cmd("provider.switch", ids, {
      threadId: T,
      modelSelection: { instanceId: "claudeAgent", model: "claude-fable-5" },
    }),
  "provider-session.detach": (ids) =>
    cmd("provider-session.detach", ids, {
      threadId: T,
      providerSessionId: "provider-session-1",
      reason: "stale session",
    }),
  "run.interrupt": (ids) =>
    cmd("run.interrupt", ids, { threadId: T, runId: R1, reason: "user stop", holdQueue: true }),
  "prepared-run.release": (ids) => cmd("prepared-run.release", ids, { threadId: T, runId: R1 }),
  "prepared-run.retry": (ids) => cmd("prepared-run.retry", ids, { threadId: T, runId: R1 }),
  "queue.resume": (ids) => cmd("queue.resume", ids, { threadId: T }),
  "queued-run.cancel": (ids) => cmd("queued-run.cancel", ids, { threadId: T, runId: R2 }),
  "queued-run.reorder": (ids) =>
    cmd("queued-run.reorder", ids, { threadId: T, runId: R2, beforeRunId: null }),
  "queued-run.edit": (ids) =>
    cmd("queued-run.edit", ids, { threadId: T, runId: R2, text: "Edited follow-up." }),
  "queued-message.promote-to-steer": (ids) =>
    cmd("queued-message.promote-to-steer", ids, { threadId: T, queuedRunId: R2, targetRunId: R1 }),
  "runtime-request.approve": (ids) =>
    cmd("runtime-request.respond", ids, {
      threadId: T,
      requestId: "request-approval-1",
      decision: "acceptForSession",
    }),
  "runtime-request.answer": (ids) =>
    cmd("runtime-request.respond", ids, {
      threadId: T,
      requestId: "request-question-1",
      answers: { name: "Alex", destinations: ["one", "two"] },
    }),
  "thread.user-input.dismiss": (ids) =>
    cmd("thread.user-input.dismiss", ids, { threadId: T, requestId: "request-question-2" }),
  "checkpoint.rollback": (ids) =>
    cmd("checkpoint.rollback", ids, {
      threadId: T,
      scopeId: "checkpoint-scope-1",
      checkpointId: "checkpoint-3",
    }),
  "thread.launch": (ids) => ({
    kind: "launch",
    input: {
      commandId: ids.commandId,
      creationSource: "mcp",
      threadId: ids.threadId as string,
      projectId: P,
      title: "fixture: launched",
      modelSelection: { instanceId: "codex", model: "gpt-5.6-sol" },
      runtimeMode: "approval-required",
      interactionMode: "default",
      workspaceStrategy: {
        type: "existing_worktree",
        worktreePath: "/srv/projects/fixture",
        branch: "feature/x",
      },
      initialMessage: {
        messageId: ids.messageId,
        text: "List the files in this workspace.",
        attachments: [],
      },
    },
  }),
  "thread.send": (ids) =>
    cmd("message.dispatch", ids, {
      ...MCP,
      threadId: T,
      messageId: ids.messageId,
      text: "Please also run the tests.",
      attachments: [],
      dispatchMode: { type: "steer_active", targetRunId: R1 },
    }),
  "thread.metadata.update": (ids) =>
    cmd("thread.metadata.update", ids, {
      threadId: T,
      branch: "feature/x",
      worktreePath: "/srv/projects/fixture",
      expectedWorktreePath: null,
    }),
  "thread.pull-request.link": (ids) =>
    cmd("thread.pull-request.link", ids, {
      threadId: T,
      host: "github.com",
      repository: "acme/widgets",
      number: 42,
      url: "https://github.com/acme/widgets/pull/42",
      source: "manual",
    }),
  "thread.pull-request.unlink": (ids) =>
    cmd("thread.pull-request.unlink", ids, {
      threadId: T,
      host: "github.com",
      repository: "acme/widgets",
      number: 42,
    }),
  "thread.pull-request.watch": (ids) =>
    cmd("thread.pull-request.watch", ids, {
      threadId: T,
      host: "github.com",
      repository: "acme/widgets",
      number: 42,
      watching: true,
      link: { url: "https://github.com/acme/widgets/pull/42", source: "manual" },
    }),
  "thread.fork": (ids) =>
    cmd("thread.fork", ids, {
      ...MCP,
      sourceThreadId: T,
      targetThreadId: ids.targetThreadId,
      sourcePoint: { type: "run", runId: R1 },
      title: "fixture: fork",
    }),
  "thread.merge_back": (ids) =>
    cmd("thread.merge_back", ids, {
      ...MCP,
      sourceThreadId: T2,
      targetThreadId: T,
      sourcePoint: { type: "latest_stable" },
    }),
  "delegated_task.request": (ids) =>
    cmd("delegated_task.request", ids, {
      ...MCP,
      parentThreadId: T,
      parentRunId: R1,
      parentNodeId: "node-1",
      task: "Summarise the failing tests.",
      modelSelection: { instanceId: "codex", model: "gpt-5.6-sol-mini" },
      runtimeMode: "full-access",
      interactionMode: "default",
      completionWake: "settled_only",
    }),
  "delegated_task.wake-policy": (ids) =>
    cmd("delegated_task.wake-policy", ids, { parentThreadId: T, taskId: "task-1", completionWake: "always" }),
  "delegated_task.completion-delivery.acknowledge": (ids) =>
    cmd("delegated_task.completion-delivery.acknowledge", ids, {
      parentThreadId: T,
      taskId: "task-1",
      observedByRunId: R1,
    }),
  "delegated_task.completion-delivery.dispose": (ids) =>
    cmd("delegated_task.completion-delivery.dispose", ids, { parentThreadId: T, taskId: "task-1" }),
  "project.create": (ids) =>
    mutation("project.create", ids, {
      projectId: ids.projectId,
      title: "fixtures",
      workspaceRoot: "/srv/projects/fixture/new",
      createWorkspaceRootIfMissing: true,
    }),
  "project.meta.update": (ids) =>
    mutation("project.update", ids, { projectId: P, title: "fixtures, renamed" }),
  "project.delete": (ids) => mutation("project.delete", ids, { projectId: P }),
};

/** A `projects.mutate` mutation (0.0.31's union: fixtures 100-115). */
function mutation(type: string, ids: DerivedIds, fields: Record<string, unknown>): BuiltPayload {
  return { kind: "project", mutation: { type, commandId: ids.commandId, ...fields } };
}

/**
 * Field sets of the V2 commands and of the launch input, independent of the
 * table above: every built payload must carry all required fields and nothing outside the union.
 */
const V2_FIELDS: Record<string, { required: string[]; optional?: string[] }> = {
  "thread.archive": { required: ["threadId"] },
  "thread.unarchive": { required: ["threadId"] },
  "thread.delete": { required: ["threadId"] },
  "thread.settle": { required: ["threadId"], optional: ["settledAt"] },
  "thread.unsettle": { required: ["threadId", "reason"] },
  "thread.snooze": { required: ["threadId", "snoozedUntil"] },
  "thread.unsnooze": { required: ["threadId", "reason"] },
  "thread.pin": { required: ["threadId"], optional: ["orderKey"] },
  "thread.unpin": { required: ["threadId"] },
  "thread.pin.reorder": { required: ["threadId", "orderKey"] },
  "thread.active.reorder": { required: ["threadId", "orderKey"] },
  "thread.auto-settle.set": { required: ["threadId"], optional: ["enabled"] },
  "thread.visit": { required: ["threadId", "visitedAt"] },
  "thread.mark-unread": { required: ["threadId"] },
  "thread.metadata.update": {
    required: ["threadId"],
    optional: [
      "title",
      "regenerateTitle",
      "branch",
      "worktreePath",
      "expectedWorktreePath",
      "linkedPullRequest",
    ],
  },
  "thread.runtime-mode.set": { required: ["threadId", "runtimeMode"] },
  "thread.interaction-mode.set": { required: ["threadId", "interactionMode"] },
  "thread.model-selection.set": { required: ["threadId", "modelSelection"] },
  "provider.switch": { required: ["threadId", "modelSelection"] },
  "provider-session.detach": { required: ["threadId", "providerSessionId"], optional: ["reason"] },
  "message.dispatch": {
    required: ["createdBy", "creationSource", "threadId", "messageId", "text", "attachments", "dispatchMode"],
    optional: [
      "titleSeed",
      "modelSelection",
      "sourcePlanRef",
      "restartContinuationOfRunId",
      "delegatedCompletion",
    ],
  },
  "prepared-run.release": { required: ["threadId", "runId"] },
  "prepared-run.retry": { required: ["threadId", "runId"] },
  "thread.pull-request.watch": {
    required: ["threadId", "host", "repository", "number", "watching"],
    optional: ["link", "paused"],
  },
  "run.interrupt": {
    required: ["threadId", "runId"],
    optional: ["reason", "holdQueue", "keepDelegatedCompletions"],
  },
  "queue.resume": { required: ["threadId"] },
  "queued-message.promote-to-steer": { required: ["threadId", "queuedRunId", "targetRunId"] },
  "queued-run.reorder": { required: ["threadId", "runId", "beforeRunId"] },
  "queued-run.cancel": { required: ["threadId", "runId"] },
  "queued-run.edit": { required: ["threadId", "runId", "text"], optional: ["attachments"] },
  "runtime-request.respond": { required: ["threadId", "requestId"], optional: ["decision", "answers"] },
  "thread.user-input.dismiss": { required: ["threadId", "requestId"] },
  "checkpoint.rollback": { required: ["threadId", "scopeId", "checkpointId"] },
  "thread.pull-request.link": { required: ["threadId", "host", "repository", "number", "url", "source"] },
  "thread.pull-request.unlink": { required: ["threadId", "host", "repository", "number"] },
  "thread.fork": {
    required: ["createdBy", "creationSource", "sourceThreadId", "targetThreadId", "sourcePoint"],
    optional: ["title", "policyCeiling", "createdAt"],
  },
  "thread.merge_back": {
    required: ["createdBy", "creationSource", "sourceThreadId", "targetThreadId", "sourcePoint"],
    optional: ["createdAt"],
  },
  "delegated_task.request": {
    required: [
      "createdBy",
      "creationSource",
      "parentThreadId",
      "parentRunId",
      "parentNodeId",
      "task",
      "modelSelection",
      "runtimeMode",
      "interactionMode",
    ],
    optional: ["title", "completionWake", "createdAt"],
  },
  "delegated_task.wake-policy": { required: ["parentThreadId", "taskId", "completionWake"] },
  "delegated_task.completion-delivery.acknowledge": {
    required: ["parentThreadId", "taskId", "observedByRunId"],
  },
  "delegated_task.completion-delivery.dispose": { required: ["parentThreadId", "taskId"] },
  "project.create": {
    required: ["projectId", "title", "workspaceRoot"],
    optional: ["createWorkspaceRootIfMissing", "defaultModelSelection", "scripts"],
  },
  "project.update": {
    required: ["projectId"],
    optional: ["title", "workspaceRoot", "defaultModelSelection", "scripts"],
  },
  "project.delete": { required: ["projectId"], optional: ["force"] },
};
const LAUNCH_FIELDS = {
  required: [
    "commandId",
    "projectId",
    "title",
    "modelSelection",
    "runtimeMode",
    "interactionMode",
    "workspaceStrategy",
  ],
  optional: ["creationSource", "threadId", "reuseExistingThread", "generateTitle", "initialMessage"],
};

function expectV2Shape(payload: BuiltPayload): void {
  if (payload.kind === "launch") {
    const keys = Object.keys(payload.input);
    for (const field of LAUNCH_FIELDS.required) expect(keys).toContain(field);
    for (const key of keys) expect([...LAUNCH_FIELDS.required, ...LAUNCH_FIELDS.optional]).toContain(key);
    return;
  }
  const { type, commandId, ...rest } = payload.kind === "project" ? payload.mutation : payload.command;
  expect(commandId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  const fields = V2_FIELDS[type];
  expect(fields, `V2 has no command ${type}`).toBeDefined();
  if (fields === undefined) return;
  const keys = Object.keys(rest);
  for (const field of fields.required) expect(keys, type).toContain(field);
  for (const key of keys)
    expect([...fields.required, ...(fields.optional ?? [])], `${type}.${key}`).toContain(key);
  for (const value of Object.values(rest)) expect(value).not.toBeUndefined();
}

describe("built payloads", () => {
  it.each(ACTIONS.map((entry) => entry.action))("%s builds exactly the expected V2 payload", (action) => {
    const prepared = prepareAction(action, SAMPLE_INPUTS[action], KEY);
    const ids = deriveIds(KEY, action);
    expect(prepared.payload).toStrictEqual(EXPECTED[action](ids));
    expectV2Shape(prepared.payload);
  });

  it("builds each of the four thread.send deliveries with its dispatchMode", () => {
    const base = { threadId: T, text: "hi", clientRequestId: "op-1" };
    const cases: [Record<string, unknown>, Record<string, unknown>][] = [
      [
        { delivery: "steer_active", targetRunId: R1 },
        { type: "steer_active", targetRunId: R1 },
      ],
      [{ delivery: "start_immediately" }, { type: "start_immediately" }],
      [
        { delivery: "restart_active", targetRunId: R1 },
        { type: "restart_active", targetRunId: R1 },
      ],
      [{ delivery: "queue_after_active", deferUntilActiveCompletes: true }, { type: "queue_after_active" }],
    ];
    for (const [variant, mode] of cases) {
      const { payload } = prepareAction("thread.send", { ...base, ...variant }, KEY);
      expectV2Shape(payload);
      expect(payload.kind === "dispatch" && payload.command.dispatchMode).toStrictEqual(mode);
      for (const leaked of ["delivery", "clientRequestId", "deferUntilActiveCompletes", "targetRunId"]) {
        expect(payload.kind === "dispatch" && leaked in payload.command).toBe(false);
      }
    }
  });

  it("forwards attachments of a send unchanged", () => {
    const file = { type: "image", id: "img-1", name: "shot.png", mimeType: "image/png", sizeBytes: 2048 };
    const { payload } = prepareAction(
      "thread.send",
      {
        threadId: T,
        text: "see",
        clientRequestId: "op-1",
        delivery: "start_immediately",
        attachments: [file],
      },
      KEY,
    );
    expect(payload.kind === "dispatch" && payload.command.attachments).toStrictEqual([file]);
  });

  it("launches without an initial message when no text is given, defaulting the runtime mode", () => {
    const { payload } = prepareAction(
      "thread.launch",
      {
        projectId: P,
        title: "t",
        modelSelection: { instanceId: "codex", model: "gpt-5.6-sol" },
        workspaceStrategy: { type: "worktree", baseRef: "main", startFromOrigin: true },
      },
      KEY,
    );
    expectV2Shape(payload);
    expect(payload.kind === "launch" && payload.input).toMatchObject({ runtimeMode: "full-access" });
    expect(payload.kind === "launch" && "initialMessage" in payload.input).toBe(false);
  });

  it("keeps the connector-only guard overrides of settle and snooze out of the payload", () => {
    const { payload } = prepareAction(
      "thread.snooze",
      {
        threadId: T,
        snoozedUntil: "2026-12-03T15:01:50.660+02:00",
        allowActiveRun: true,
        allowPendingRequest: true,
      },
      KEY,
    );
    expect(payload).toStrictEqual(
      cmd("thread.snooze", deriveIds(KEY, "thread.snooze"), {
        threadId: T,
        snoozedUntil: "2026-12-03T13:01:50.660Z",
      }),
    );
    const settle = prepareAction("thread.settle", { threadId: T, allowActiveRun: true }, KEY);
    expect(settle.payload).toStrictEqual(
      cmd("thread.settle", deriveIds(KEY, "thread.settle"), { threadId: T }),
    );
  });

  it("adds no createdAt to any command (server time only)", () => {
    for (const entry of ACTIONS) {
      const { payload } = prepareAction(entry.action, SAMPLE_INPUTS[entry.action], KEY);
      const body =
        payload.kind === "dispatch"
          ? payload.command
          : payload.kind === "project"
            ? payload.mutation
            : payload.input;
      expect("createdAt" in body).toBe(false);
    }
  });

  it("refuses a metadata update that changes nothing or both sets and regenerates the title", () => {
    const schema = getAction("thread.metadata.update").inputSchema;
    expect(schema.safeParse({ threadId: T }).success).toBe(false);
    expect(schema.safeParse({ threadId: T, title: "x", regenerateTitle: true }).success).toBe(false);
    expect(schema.safeParse({ threadId: T, regenerateTitle: true }).success).toBe(true);
  });
});
