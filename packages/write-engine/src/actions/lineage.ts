/** Actions 37-42: forks, merge-back and delegated tasks (threads that act on other threads). */
import { z } from "zod";
import { defineAction, dispatch, hints, oneThread, PROVENANCE, requireId } from "./define.js";
import {
  COMPLETION_WAKES,
  DEFAULT_RUNTIME_MODE,
  idString,
  messageText,
  modelSelection,
  runtimeMode,
  sourcePoint,
  titleText,
} from "./fields.js";
import { MODEL_SELECTION_GUARD } from "./guards.js";

const completionWake = z.enum(COMPLETION_WAKES);

export const threadFork = defineAction({
  action: "thread.fork",
  toolName: "t3_escrever_thread_fork",
  label: "Fork a thread",
  group: "run",
  description: "Creates a new thread from another one at a chosen point.",
  toolNotes: "sourcePoint is latest_stable, a run or a checkpoint.",
  annotations: hints(false),
  inputSchema: z.strictObject({ sourceThreadId: idString, sourcePoint, title: titleText.optional() }),
  commandType: "thread.fork",
  payloadKind: "dispatch",
  extraIds: ["targetThreadId"],
  guards: [],
  serializeByProject: true,
  targets: (input) => oneThread(input.sourceThreadId),
  build: (input, ids) =>
    dispatch("thread.fork", ids, {
      ...PROVENANCE,
      sourceThreadId: input.sourceThreadId,
      targetThreadId: requireId(ids, "targetThreadId", "thread.fork"),
      sourcePoint: input.sourcePoint,
      title: input.title,
    }),
});

export const threadMergeBack = defineAction({
  action: "thread.merge_back",
  toolName: "t3_escrever_thread_merge_back",
  label: "Merge a thread back",
  group: "destructive",
  description: "Brings one thread's work back into another, changing the target thread's work.",
  toolNotes: "Merges sourceThreadId (from sourcePoint) into targetThreadId.",
  annotations: hints(true),
  inputSchema: z.strictObject({ sourceThreadId: idString, targetThreadId: idString, sourcePoint }),
  commandType: "thread.merge_back",
  payloadKind: "dispatch",
  extraIds: [],
  guards: [],
  serializeByProject: false,
  targets: (input) => ({ threadIds: [input.sourceThreadId, input.targetThreadId], projectIds: [] }),
  build: (input, ids) =>
    dispatch("thread.merge_back", ids, {
      ...PROVENANCE,
      sourceThreadId: input.sourceThreadId,
      targetThreadId: input.targetThreadId,
      sourcePoint: input.sourcePoint,
    }),
});

export const delegatedTaskRequest = defineAction({
  action: "delegated_task.request",
  toolName: "t3_escrever_delegated_task_request",
  label: "Start a delegated task",
  group: "run",
  description: "Asks T3 to run a task in a child thread on behalf of a run.",
  toolNotes: "The child thread hangs off parentThreadId and the run's node.",
  annotations: hints(false),
  inputSchema: z.strictObject({
    parentThreadId: idString,
    parentRunId: idString,
    parentNodeId: idString,
    task: messageText,
    title: titleText.optional(),
    modelSelection,
    runtimeMode: runtimeMode.default(DEFAULT_RUNTIME_MODE),
    completionWake: completionWake.optional(),
  }),
  commandType: "delegated_task.request",
  payloadKind: "dispatch",
  extraIds: [],
  guards: [MODEL_SELECTION_GUARD],
  runtimeModeField: "runtimeMode",
  serializeByProject: false,
  targets: (input) => oneThread(input.parentThreadId),
  build: (input, ids) =>
    dispatch("delegated_task.request", ids, {
      ...PROVENANCE,
      parentThreadId: input.parentThreadId,
      parentRunId: input.parentRunId,
      parentNodeId: input.parentNodeId,
      task: input.task,
      title: input.title,
      modelSelection: input.modelSelection,
      runtimeMode: input.runtimeMode,
      interactionMode: "default",
      completionWake: input.completionWake,
    }),
});

export const delegatedTaskWakePolicy = defineAction({
  action: "delegated_task.wake-policy",
  toolName: "t3_escrever_delegated_task_wake_policy",
  label: "Set when a delegated task wakes its parent",
  group: "run",
  description: "Chooses when a delegated task's completion wakes its parent thread.",
  toolNotes: "always or settled_only.",
  annotations: hints(false),
  inputSchema: z.strictObject({ parentThreadId: idString, taskId: idString, completionWake }),
  commandType: "delegated_task.wake-policy",
  payloadKind: "dispatch",
  extraIds: [],
  guards: [],
  serializeByProject: false,
  targets: (input) => oneThread(input.parentThreadId),
  build: (input, ids) =>
    dispatch("delegated_task.wake-policy", ids, {
      parentThreadId: input.parentThreadId,
      taskId: input.taskId,
      completionWake: input.completionWake,
    }),
});

export const delegatedTaskCompletionDeliveryAcknowledge = defineAction({
  action: "delegated_task.completion-delivery.acknowledge",
  toolName: "t3_escrever_delegated_task_completion_delivery_acknowledge",
  label: "Acknowledge a delegated task's result",
  group: "run",
  description: "Confirms that a delegated task's result was delivered to its parent.",
  toolNotes: "observedByRunId is the run that saw it, or null.",
  annotations: hints(false),
  inputSchema: z.strictObject({
    parentThreadId: idString,
    taskId: idString,
    observedByRunId: idString.nullable(),
  }),
  commandType: "delegated_task.completion-delivery.acknowledge",
  payloadKind: "dispatch",
  extraIds: [],
  guards: [],
  serializeByProject: false,
  targets: (input) => oneThread(input.parentThreadId),
  build: (input, ids) =>
    dispatch("delegated_task.completion-delivery.acknowledge", ids, {
      parentThreadId: input.parentThreadId,
      taskId: input.taskId,
      observedByRunId: input.observedByRunId,
    }),
});

export const delegatedTaskCompletionDeliveryDispose = defineAction({
  action: "delegated_task.completion-delivery.dispose",
  toolName: "t3_escrever_delegated_task_completion_delivery_dispose",
  label: "Discard a delegated task's result",
  group: "destructive",
  description:
    "Discards a delegated task's result before its parent receives it; it cannot be delivered again.",
  annotations: hints(true),
  inputSchema: z.strictObject({ parentThreadId: idString, taskId: idString }),
  commandType: "delegated_task.completion-delivery.dispose",
  payloadKind: "dispatch",
  extraIds: [],
  guards: [],
  serializeByProject: false,
  targets: (input) => oneThread(input.parentThreadId),
  build: (input, ids) =>
    dispatch("delegated_task.completion-delivery.dispose", ids, {
      parentThreadId: input.parentThreadId,
      taskId: input.taskId,
    }),
});
