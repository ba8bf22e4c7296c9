/** Actions 37-42: forks, merge-back and delegated tasks (threads that act on other threads). */
import { z } from "zod";
import { defineAction, oneThread, PROVENANCE, requireId } from "./define.js";
import {
  COMPLETION_WAKES,
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
  label: "Fork a thread",
  group: "run",
  // The new thread takes the source thread's mode: creating it is choosing that mode.
  runEffect: "sets-mode",
  description: "Creates a new thread from another one at a chosen point.",
  inputSchema: z.strictObject({ sourceThreadId: idString, sourcePoint, title: titleText.optional() }),
  extraIds: ["targetThreadId"],
  serializeByProject: true,
  targets: (input) => oneThread(input.sourceThreadId),
  fields: (input, ids) => ({
    ...PROVENANCE,
    sourceThreadId: input.sourceThreadId,
    targetThreadId: requireId(ids, "targetThreadId", "thread.fork"),
    sourcePoint: input.sourcePoint,
    title: input.title,
  }),
});

export const threadMergeBack = defineAction({
  action: "thread.merge_back",
  label: "Merge a thread back",
  group: "destructive",
  // The merged work reaches the target thread's next run; the source thread runs nothing.
  runEffect: "changes-run",
  drives: (input) => [input.targetThreadId],
  description: "Brings one thread's work back into another, changing the target thread's work.",
  inputSchema: z.strictObject({ sourceThreadId: idString, targetThreadId: idString, sourcePoint }),
  targets: (input) => ({ threadIds: [input.sourceThreadId, input.targetThreadId], projectIds: [] }),
  fields: (input) => ({
    ...PROVENANCE,
    sourceThreadId: input.sourceThreadId,
    targetThreadId: input.targetThreadId,
    sourcePoint: input.sourcePoint,
  }),
});

export const delegatedTaskRequest = defineAction({
  action: "delegated_task.request",
  label: "Start a delegated task",
  group: "run",
  // The child runs in the input's mode; its completion wakes the parent, a run in the parent's mode.
  runEffect: "starts-run",
  description: "Asks T3 to run a task in a child thread on behalf of a run.",
  inputSchema: z.strictObject({
    parentThreadId: idString,
    parentRunId: idString,
    parentNodeId: idString,
    task: messageText,
    title: titleText.optional(),
    modelSelection,
    // Omitted: the sender's ceiling fills it (prepareAction, ADR 0037).
    runtimeMode: runtimeMode.optional(),
    completionWake: completionWake.optional(),
  }),
  guards: [MODEL_SELECTION_GUARD],
  runtimeModeField: "runtimeMode",
  targets: (input) => oneThread(input.parentThreadId),
  fields: (input) => ({
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
  label: "Set when a delegated task wakes its parent",
  group: "run",
  // Chooses when the parent is woken: a run in the parent's mode.
  runEffect: "starts-run",
  description: "Chooses when a delegated task's completion wakes its parent thread.",
  inputSchema: z.strictObject({ parentThreadId: idString, taskId: idString, completionWake }),
  targets: (input) => oneThread(input.parentThreadId),
  fields: (input) => ({
    parentThreadId: input.parentThreadId,
    taskId: input.taskId,
    completionWake: input.completionWake,
  }),
});

export const delegatedTaskCompletionDeliveryAcknowledge = defineAction({
  action: "delegated_task.completion-delivery.acknowledge",
  label: "Acknowledge a delegated task's result",
  group: "run",
  runEffect: "runs-nothing",
  description: "Confirms that a delegated task's result was delivered to its parent.",
  inputSchema: z.strictObject({
    parentThreadId: idString,
    taskId: idString,
    observedByRunId: idString.nullable(),
  }),
  targets: (input) => oneThread(input.parentThreadId),
  fields: (input) => ({
    parentThreadId: input.parentThreadId,
    taskId: input.taskId,
    observedByRunId: input.observedByRunId,
  }),
});

export const delegatedTaskCompletionDeliveryDispose = defineAction({
  action: "delegated_task.completion-delivery.dispose",
  label: "Discard a delegated task's result",
  group: "destructive",
  runEffect: "runs-nothing",
  description:
    "Discards a delegated task's result before its parent receives it; it cannot be delivered again.",
  inputSchema: z.strictObject({ parentThreadId: idString, taskId: idString }),
  targets: (input) => oneThread(input.parentThreadId),
  fields: (input) => ({
    parentThreadId: input.parentThreadId,
    taskId: input.taskId,
  }),
});
