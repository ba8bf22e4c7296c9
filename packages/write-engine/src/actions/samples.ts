/**
 * One valid raw input per action (and for the conditional send). Tests use them to check that
 * every payload builds and that the simulator accepts it; docs and the operator CLI may show them
 * as examples. Ids follow the shapes of the real captures (run ids are not UUIDs).
 */
import type { ActionId } from "./catalogue.js";

export const SAMPLE_THREAD_ID = "0798fcf8-49d7-4821-812e-7cdce591eed0";
export const SAMPLE_OTHER_THREAD_ID = "b7140cce-94f5-4f8b-82d5-5f8f67f9fbfa";
export const SAMPLE_PROJECT_ID = "d21e26bb-47ea-4b08-a81f-0abce1f8f482";
export const SAMPLE_RUN_ID = `run:thread:${SAMPLE_THREAD_ID}:ordinal:1`;
export const SAMPLE_QUEUED_RUN_ID = `run:thread:${SAMPLE_THREAD_ID}:ordinal:2`;
export const SAMPLE_OPERATION_ID = "op-sample-0001";
export const SAMPLE_WORKSPACE_ROOT = "/srv/projects/fixture";
/** The ids the samples use, so a test can seed a simulator with matching threads, runs and projects. */
export const SAMPLE_IDS = {
  threadId: SAMPLE_THREAD_ID,
  otherThreadId: SAMPLE_OTHER_THREAD_ID,
  projectId: SAMPLE_PROJECT_ID,
  runId: SAMPLE_RUN_ID,
  queuedRunId: SAMPLE_QUEUED_RUN_ID,
  operationId: SAMPLE_OPERATION_ID,
  workspaceRoot: SAMPLE_WORKSPACE_ROOT,
} as const;
const MODEL = { instanceId: "codex", model: "gpt-5.6-sol-mini" } as const;
/** Offered by the real capture's `server.getConfig` (fixture 62), options included. */
const MODEL_WITH_OPTIONS = {
  instanceId: "claudeAgent",
  model: "claude-opus-5",
  options: [
    { id: "fastMode", value: true },
    { id: "effort", value: "max" },
  ],
} as const;

export const SAMPLE_INPUTS: Readonly<Record<ActionId, Readonly<Record<string, unknown>>>> = {
  "thread.archive": { threadId: SAMPLE_THREAD_ID },
  "thread.unarchive": { threadId: SAMPLE_THREAD_ID },
  "thread.delete": { threadId: SAMPLE_THREAD_ID },
  "thread.settle": { threadId: SAMPLE_THREAD_ID },
  "thread.pin": { threadId: SAMPLE_THREAD_ID },
  "thread.unpin": { threadId: SAMPLE_THREAD_ID },
  "thread.unsnooze": { threadId: SAMPLE_THREAD_ID },
  "thread.mark-unread": { threadId: SAMPLE_THREAD_ID },
  "thread.unsettle": { threadId: SAMPLE_THREAD_ID },
  "thread.snooze": { threadId: SAMPLE_THREAD_ID, snoozedUntil: "2026-12-03T13:01:50.660Z" },
  "thread.auto-settle.set": { threadId: SAMPLE_THREAD_ID, enabled: false },
  "thread.pin.reorder": { threadId: SAMPLE_THREAD_ID, orderKey: "a1" },
  "thread.active.reorder": { threadId: SAMPLE_THREAD_ID, orderKey: "a0V" },
  "thread.visit": { threadId: SAMPLE_THREAD_ID, visitedAt: "2026-12-02T13:00:00.000Z" },
  "thread.title": { threadId: SAMPLE_THREAD_ID, title: "fixture: renamed thread" },
  "thread.runtime-mode.set": { threadId: SAMPLE_THREAD_ID, runtimeMode: "approval-required" },
  "thread.interaction-mode.set": { threadId: SAMPLE_THREAD_ID, interactionMode: "plan" },
  "thread.model-selection.set": { threadId: SAMPLE_THREAD_ID, modelSelection: MODEL_WITH_OPTIONS },
  "provider.switch": {
    threadId: SAMPLE_THREAD_ID,
    modelSelection: { instanceId: "claudeAgent", model: "claude-fable-5" },
  },
  "provider-session.detach": {
    threadId: SAMPLE_THREAD_ID,
    providerSessionId: "provider-session-1",
    reason: "stale session",
  },
  "run.interrupt": { threadId: SAMPLE_THREAD_ID, runId: SAMPLE_RUN_ID, reason: "user stop", holdQueue: true },
  "prepared-run.release": { threadId: SAMPLE_THREAD_ID, runId: SAMPLE_RUN_ID },
  "prepared-run.retry": { threadId: SAMPLE_THREAD_ID, runId: SAMPLE_RUN_ID },
  "queue.resume": { threadId: SAMPLE_THREAD_ID },
  "queued-run.cancel": { threadId: SAMPLE_THREAD_ID, runId: SAMPLE_QUEUED_RUN_ID },
  "queued-run.reorder": { threadId: SAMPLE_THREAD_ID, runId: SAMPLE_QUEUED_RUN_ID, beforeRunId: null },
  "queued-run.edit": { threadId: SAMPLE_THREAD_ID, runId: SAMPLE_QUEUED_RUN_ID, text: "Edited follow-up." },
  "queued-message.promote-to-steer": {
    threadId: SAMPLE_THREAD_ID,
    queuedRunId: SAMPLE_QUEUED_RUN_ID,
    targetRunId: SAMPLE_RUN_ID,
  },
  "runtime-request.approve": {
    threadId: SAMPLE_THREAD_ID,
    requestId: "request-approval-1",
    decision: "acceptForSession",
  },
  "runtime-request.answer": {
    threadId: SAMPLE_THREAD_ID,
    requestId: "request-question-1",
    answers: { name: "Alex", destinations: ["one", "two"] },
  },
  "thread.user-input.dismiss": { threadId: SAMPLE_THREAD_ID, requestId: "request-question-2" },
  "checkpoint.rollback": {
    threadId: SAMPLE_THREAD_ID,
    scopeId: "checkpoint-scope-1",
    checkpointId: "checkpoint-3",
  },
  "thread.launch": {
    projectId: SAMPLE_PROJECT_ID,
    title: "fixture: launched",
    modelSelection: { instanceId: "codex", model: "gpt-5.6-sol" },
    workspaceStrategy: {
      type: "existing_worktree",
      worktreePath: SAMPLE_WORKSPACE_ROOT,
      branch: "feature/x",
    },
    runtimeMode: "approval-required",
    text: "List the files in this workspace.",
  },
  "thread.send": {
    threadId: SAMPLE_THREAD_ID,
    text: "Please also run the tests.",
    clientRequestId: SAMPLE_OPERATION_ID,
    delivery: "steer_active",
    targetRunId: SAMPLE_RUN_ID,
  },
  "thread.metadata.update": {
    threadId: SAMPLE_THREAD_ID,
    branch: "feature/x",
    worktreePath: SAMPLE_WORKSPACE_ROOT,
    expectedWorktreePath: null,
  },
  "thread.pull-request.link": {
    threadId: SAMPLE_THREAD_ID,
    host: "github.com",
    repository: "acme/widgets",
    number: 42,
    url: "https://github.com/acme/widgets/pull/42",
    source: "manual",
  },
  "thread.pull-request.unlink": {
    threadId: SAMPLE_THREAD_ID,
    host: "github.com",
    repository: "acme/widgets",
    number: 42,
  },
  "thread.pull-request.watch": {
    threadId: SAMPLE_THREAD_ID,
    host: "github.com",
    repository: "acme/widgets",
    number: 42,
    watching: true,
    link: { url: "https://github.com/acme/widgets/pull/42", source: "manual" },
  },
  "thread.fork": {
    sourceThreadId: SAMPLE_THREAD_ID,
    sourcePoint: { type: "run", runId: SAMPLE_RUN_ID },
    title: "fixture: fork",
  },
  "thread.merge_back": {
    sourceThreadId: SAMPLE_OTHER_THREAD_ID,
    targetThreadId: SAMPLE_THREAD_ID,
    sourcePoint: { type: "latest_stable" },
  },
  "delegated_task.request": {
    parentThreadId: SAMPLE_THREAD_ID,
    parentRunId: SAMPLE_RUN_ID,
    parentNodeId: "node-1",
    task: "Summarise the failing tests.",
    modelSelection: MODEL,
    completionWake: "settled_only",
  },
  "delegated_task.wake-policy": {
    parentThreadId: SAMPLE_THREAD_ID,
    taskId: "task-1",
    completionWake: "always",
  },
  "delegated_task.completion-delivery.acknowledge": {
    parentThreadId: SAMPLE_THREAD_ID,
    taskId: "task-1",
    observedByRunId: SAMPLE_RUN_ID,
  },
  "delegated_task.completion-delivery.dispose": { parentThreadId: SAMPLE_THREAD_ID, taskId: "task-1" },
  "project.create": {
    title: "fixtures",
    workspaceRoot: `${SAMPLE_WORKSPACE_ROOT}/new`,
    createWorkspaceRootIfMissing: true,
  },
  "project.meta.update": { projectId: SAMPLE_PROJECT_ID, title: "fixtures, renamed" },
  "project.delete": { projectId: SAMPLE_PROJECT_ID },
};

export const SAMPLE_CONDITIONAL_SEND_INPUT: Readonly<Record<string, unknown>> = {
  threadId: SAMPLE_THREAD_ID,
  clientRequestId: SAMPLE_OPERATION_ID,
  afterRunId: SAMPLE_RUN_ID,
  modelSelection: MODEL_WITH_OPTIONS,
  text: "Now write the changelog entry.",
  waitMs: 0,
};
