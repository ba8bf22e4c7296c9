/** Actions 18-31: model and provider, runs and the queue, runtime requests, checkpoints. */

import { APPROVAL_DECISIONS } from "@t3-connector/core/state";
import { z } from "zod";
import { defineAction, threadInput } from "./define.js";
import { answers, attachments, idString, messageText, modelSelection, reasonText } from "./fields.js";
import { MODEL_SELECTION_GUARD } from "./guards.js";

export const threadModelSelectionSet = defineAction({
  action: "thread.model-selection.set",
  label: "Change the model",
  group: "run",
  runEffect: "runs-nothing",
  description: "Sets the model (and its options) the thread's next run uses.",
  inputSchema: threadInput({ modelSelection }),
  guards: [MODEL_SELECTION_GUARD],
  fields: (input) => ({
    threadId: input.threadId,
    modelSelection: input.modelSelection,
  }),
});

export const providerSwitch = defineAction({
  action: "provider.switch",
  label: "Switch provider",
  group: "run",
  runEffect: "changes-run",
  description: "Moves the thread to another provider instance and model.",
  inputSchema: threadInput({ modelSelection }),
  guards: [MODEL_SELECTION_GUARD],
  fields: (input) => ({ threadId: input.threadId, modelSelection: input.modelSelection }),
});

export const providerSessionDetach = defineAction({
  action: "provider-session.detach",
  label: "Detach the provider session",
  group: "run",
  runEffect: "changes-run",
  description: "Detaches the thread's provider session, ending its process.",
  inputSchema: threadInput({ providerSessionId: idString, reason: reasonText.optional() }),
  fields: (input) => ({
    threadId: input.threadId,
    providerSessionId: input.providerSessionId,
    reason: input.reason,
  }),
});

export const runInterrupt = defineAction({
  action: "run.interrupt",
  label: "Stop a run",
  group: "run",
  // Stopping a run starts the next queued one (in the thread's mode) unless the queue is held.
  runEffect: "changes-run",
  effectHolds: (input, thread) => input.holdQueue !== true && thread.queuedToStart > 0,
  ceilingAdvice: "stop it with holdQueue: true, which starts none of its queued runs",
  description: "Stops the running agent turn.",
  inputSchema: threadInput({
    runId: idString,
    reason: reasonText.optional(),
    holdQueue: z.boolean().optional(),
  }),
  fields: (input) => ({
    threadId: input.threadId,
    runId: input.runId,
    reason: input.reason,
    holdQueue: input.holdQueue,
  }),
});

export const preparedRunRelease = defineAction({
  action: "prepared-run.release",
  label: "Start a prepared run",
  group: "run",
  runEffect: "starts-run",
  description: "Lets a prepared run start.",
  inputSchema: threadInput({ runId: idString }),
  fields: (input) => ({ threadId: input.threadId, runId: input.runId }),
});

/**
 * Newer T3 servers only: a failed workspace preparation is tried again and the run goes back to
 * `preparing`. Confirmed by reading the thread (the run's status), never by an event name. Once
 * prepared, the run starts in the thread's mode at that moment (a run records its model, not a
 * mode), so the lease's ceiling caps the thread's current mode, as for a message (ADR 0036).
 */
export const preparedRunRetry = defineAction({
  action: "prepared-run.retry",
  label: "Retry a failed workspace preparation",
  group: "run",
  runEffect: "starts-run",
  description:
    "Prepares the workspace of a run whose preparation failed again; the run goes back to preparing.",
  inputSchema: threadInput({ runId: idString }),
  fields: (input) => ({ threadId: input.threadId, runId: input.runId }),
});

/** The held runs start in the thread's current mode: the ceiling caps it, as for a message (ADR 0036). */
export const queueResume = defineAction({
  action: "queue.resume",
  label: "Resume the queue",
  group: "run",
  runEffect: "starts-run",
  description: "Lets runs held in the thread's queue start again.",
  inputSchema: threadInput({}),
  fields: (input) => ({ threadId: input.threadId }),
});

export const queuedRunCancel = defineAction({
  action: "queued-run.cancel",
  label: "Cancel a queued message",
  group: "run",
  runEffect: "runs-nothing",
  description: "Removes a queued message before it starts.",
  inputSchema: threadInput({ runId: idString }),
  fields: (input) => ({ threadId: input.threadId, runId: input.runId }),
});

export const queuedRunReorder = defineAction({
  action: "queued-run.reorder",
  label: "Reorder queued messages",
  group: "run",
  runEffect: "changes-run",
  description: "Moves a queued message earlier or later in the queue.",
  inputSchema: threadInput({ runId: idString, beforeRunId: idString.nullable() }),
  fields: (input) => ({
    threadId: input.threadId,
    runId: input.runId,
    beforeRunId: input.beforeRunId,
  }),
});

export const queuedRunEdit = defineAction({
  action: "queued-run.edit",
  label: "Edit a queued message",
  group: "run",
  runEffect: "changes-run",
  description: "Replaces the text (and attachments) of a queued message before it starts.",
  inputSchema: threadInput({ runId: idString, text: messageText, attachments: attachments.optional() }),
  fields: (input) => ({
    threadId: input.threadId,
    runId: input.runId,
    text: input.text,
    attachments: input.attachments,
  }),
});

export const queuedMessagePromoteToSteer = defineAction({
  action: "queued-message.promote-to-steer",
  label: "Send a queued message now",
  group: "run",
  runEffect: "changes-run",
  description: "Delivers a queued message into the running turn now instead of after it.",
  inputSchema: threadInput({ queuedRunId: idString, targetRunId: idString }),
  fields: (input) => ({
    threadId: input.threadId,
    queuedRunId: input.queuedRunId,
    targetRunId: input.targetRunId,
  }),
});

export const runtimeRequestApprove = defineAction({
  action: "runtime-request.approve",
  label: "Answer the agent's permission request",
  group: "run",
  runEffect: "starts-run",
  description: "Accepts or declines something the agent asked permission for (a command, an edit).",
  inputSchema: threadInput({ requestId: idString, decision: z.enum(APPROVAL_DECISIONS) }),
  commandType: "runtime-request.respond",
  fields: (input) => ({
    threadId: input.threadId,
    requestId: input.requestId,
    decision: input.decision,
  }),
});

export const runtimeRequestAnswer = defineAction({
  action: "runtime-request.answer",
  label: "Answer the agent's question",
  group: "run",
  runEffect: "starts-run",
  description: "Answers a question the agent asked.",
  inputSchema: threadInput({ requestId: idString, answers }),
  commandType: "runtime-request.respond",
  fields: (input) => ({
    threadId: input.threadId,
    requestId: input.requestId,
    answers: input.answers,
  }),
});

export const threadUserInputDismiss = defineAction({
  action: "thread.user-input.dismiss",
  label: "Dismiss the agent's question",
  group: "run",
  runEffect: "runs-nothing",
  description: "Dismisses a pending question without answering it.",
  inputSchema: threadInput({ requestId: idString }),
  fields: (input) => ({ threadId: input.threadId, requestId: input.requestId }),
});

export const checkpointRollback = defineAction({
  action: "checkpoint.rollback",
  label: "Roll back to a checkpoint",
  group: "destructive",
  runEffect: "runs-nothing",
  description:
    "Rolls the thread back to an earlier checkpoint, discarding what came after (and the files, when asked).",
  inputSchema: threadInput({ scopeId: idString, checkpointId: idString }),
  fields: (input) => ({
    threadId: input.threadId,
    scopeId: input.scopeId,
    checkpointId: input.checkpointId,
  }),
});
