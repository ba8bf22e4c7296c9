/** Actions 18-31: model and provider, runs and the queue, runtime requests, checkpoints. */
import { z } from "zod";
import { defineAction, dispatch, hints, oneThread, threadInput } from "./define.js";
import {
  APPROVAL_DECISIONS,
  answers,
  attachments,
  idString,
  messageText,
  modelSelection,
  reasonText,
} from "./fields.js";
import { MODEL_SELECTION_GUARD } from "./guards.js";

const NO_IDS = [] as const;

export const threadModelSelectionSet = defineAction({
  action: "thread.model-selection.set",
  toolName: "t3_escrever_thread_model_selection_set",
  title: "Set thread model",
  description: "Set the model (and options) the thread's next run uses, on its current provider instance.",
  annotations: hints(false),
  inputSchema: threadInput({ modelSelection }),
  commandType: "thread.model-selection.set",
  payloadKind: "dispatch",
  extraIds: NO_IDS,
  guards: [MODEL_SELECTION_GUARD],
  serializeByProject: false,
  targets: (input) => oneThread(input.threadId),
  build: (input, ids) =>
    dispatch("thread.model-selection.set", ids, {
      threadId: input.threadId,
      modelSelection: input.modelSelection,
    }),
});

export const providerSwitch = defineAction({
  action: "provider.switch",
  toolName: "t3_escrever_provider_switch",
  title: "Switch provider",
  description: "Move a thread to another provider instance and model.",
  annotations: hints(false),
  inputSchema: threadInput({ modelSelection }),
  commandType: "provider.switch",
  payloadKind: "dispatch",
  extraIds: NO_IDS,
  guards: [MODEL_SELECTION_GUARD],
  serializeByProject: false,
  targets: (input) => oneThread(input.threadId),
  build: (input, ids) =>
    dispatch("provider.switch", ids, { threadId: input.threadId, modelSelection: input.modelSelection }),
});

export const providerSessionDetach = defineAction({
  action: "provider-session.detach",
  toolName: "t3_escrever_provider_session_detach",
  title: "Detach provider session",
  description: "Detach a provider session from the thread, ending its process.",
  annotations: hints(true),
  inputSchema: threadInput({ providerSessionId: idString, reason: reasonText.optional() }),
  commandType: "provider-session.detach",
  payloadKind: "dispatch",
  extraIds: NO_IDS,
  guards: [],
  serializeByProject: false,
  targets: (input) => oneThread(input.threadId),
  build: (input, ids) =>
    dispatch("provider-session.detach", ids, {
      threadId: input.threadId,
      providerSessionId: input.providerSessionId,
      reason: input.reason,
    }),
});

export const runInterrupt = defineAction({
  action: "run.interrupt",
  toolName: "t3_escrever_run_interrupt",
  title: "Interrupt run",
  description: "Stop a run. With holdQueue: true, queued runs wait for queue.resume instead of starting.",
  annotations: hints(true),
  inputSchema: threadInput({
    runId: idString,
    reason: reasonText.optional(),
    holdQueue: z.boolean().optional(),
  }),
  commandType: "run.interrupt",
  payloadKind: "dispatch",
  extraIds: NO_IDS,
  guards: [],
  serializeByProject: false,
  targets: (input) => oneThread(input.threadId),
  build: (input, ids) =>
    dispatch("run.interrupt", ids, {
      threadId: input.threadId,
      runId: input.runId,
      reason: input.reason,
      holdQueue: input.holdQueue,
    }),
});

export const preparedRunRelease = defineAction({
  action: "prepared-run.release",
  toolName: "t3_escrever_prepared_run_release",
  title: "Release prepared run",
  description: "Let a prepared run start.",
  annotations: hints(false),
  inputSchema: threadInput({ runId: idString }),
  commandType: "prepared-run.release",
  payloadKind: "dispatch",
  extraIds: NO_IDS,
  guards: [],
  serializeByProject: false,
  targets: (input) => oneThread(input.threadId),
  build: (input, ids) =>
    dispatch("prepared-run.release", ids, { threadId: input.threadId, runId: input.runId }),
});

export const queueResume = defineAction({
  action: "queue.resume",
  toolName: "t3_escrever_queue_resume",
  title: "Resume queue",
  description: "Let runs held in the thread's queue start again.",
  annotations: hints(false),
  inputSchema: threadInput({}),
  commandType: "queue.resume",
  payloadKind: "dispatch",
  extraIds: NO_IDS,
  guards: [],
  serializeByProject: false,
  targets: (input) => oneThread(input.threadId),
  build: (input, ids) => dispatch("queue.resume", ids, { threadId: input.threadId }),
});

export const queuedRunCancel = defineAction({
  action: "queued-run.cancel",
  toolName: "t3_escrever_queued_run_cancel",
  title: "Cancel queued run",
  description: "Remove a queued run before it starts.",
  annotations: hints(true),
  inputSchema: threadInput({ runId: idString }),
  commandType: "queued-run.cancel",
  payloadKind: "dispatch",
  extraIds: NO_IDS,
  guards: [],
  serializeByProject: false,
  targets: (input) => oneThread(input.threadId),
  build: (input, ids) => dispatch("queued-run.cancel", ids, { threadId: input.threadId, runId: input.runId }),
});

export const queuedRunReorder = defineAction({
  action: "queued-run.reorder",
  toolName: "t3_escrever_queued_run_reorder",
  title: "Reorder queued run",
  description: "Move a queued run before beforeRunId, or to the end when beforeRunId is null.",
  annotations: hints(false),
  inputSchema: threadInput({ runId: idString, beforeRunId: idString.nullable() }),
  commandType: "queued-run.reorder",
  payloadKind: "dispatch",
  extraIds: NO_IDS,
  guards: [],
  serializeByProject: false,
  targets: (input) => oneThread(input.threadId),
  build: (input, ids) =>
    dispatch("queued-run.reorder", ids, {
      threadId: input.threadId,
      runId: input.runId,
      beforeRunId: input.beforeRunId,
    }),
});

export const queuedRunEdit = defineAction({
  action: "queued-run.edit",
  toolName: "t3_escrever_queued_run_edit",
  title: "Edit queued run",
  description: "Replace the text (and attachments, when given) of a queued run.",
  annotations: hints(true),
  inputSchema: threadInput({ runId: idString, text: messageText, attachments: attachments.optional() }),
  commandType: "queued-run.edit",
  payloadKind: "dispatch",
  extraIds: NO_IDS,
  guards: [],
  serializeByProject: false,
  targets: (input) => oneThread(input.threadId),
  build: (input, ids) =>
    dispatch("queued-run.edit", ids, {
      threadId: input.threadId,
      runId: input.runId,
      text: input.text,
      attachments: input.attachments,
    }),
});

export const queuedMessagePromoteToSteer = defineAction({
  action: "queued-message.promote-to-steer",
  toolName: "t3_escrever_queued_message_promote_to_steer",
  title: "Promote queued message to steer",
  description: "Deliver a queued message into the running targetRunId now instead of after it.",
  annotations: hints(false),
  inputSchema: threadInput({ queuedRunId: idString, targetRunId: idString }),
  commandType: "queued-message.promote-to-steer",
  payloadKind: "dispatch",
  extraIds: NO_IDS,
  guards: [],
  serializeByProject: false,
  targets: (input) => oneThread(input.threadId),
  build: (input, ids) =>
    dispatch("queued-message.promote-to-steer", ids, {
      threadId: input.threadId,
      queuedRunId: input.queuedRunId,
      targetRunId: input.targetRunId,
    }),
});

export const runtimeRequestApprove = defineAction({
  action: "runtime-request.approve",
  toolName: "t3_escrever_runtime_request_approve",
  title: "Decide approval request",
  description: "Answer a pending approval with a decision (sent as runtime-request.respond).",
  annotations: hints(true),
  inputSchema: threadInput({ requestId: idString, decision: z.enum(APPROVAL_DECISIONS) }),
  commandType: "runtime-request.respond",
  payloadKind: "dispatch",
  extraIds: NO_IDS,
  guards: [],
  serializeByProject: false,
  targets: (input) => oneThread(input.threadId),
  build: (input, ids) =>
    dispatch("runtime-request.respond", ids, {
      threadId: input.threadId,
      requestId: input.requestId,
      decision: input.decision,
    }),
});

export const runtimeRequestAnswer = defineAction({
  action: "runtime-request.answer",
  toolName: "t3_escrever_runtime_request_answer",
  title: "Answer question request",
  description:
    "Answer a pending question; answers are keyed by question id (sent as runtime-request.respond).",
  annotations: hints(false),
  inputSchema: threadInput({ requestId: idString, answers }),
  commandType: "runtime-request.respond",
  payloadKind: "dispatch",
  extraIds: NO_IDS,
  guards: [],
  serializeByProject: false,
  targets: (input) => oneThread(input.threadId),
  build: (input, ids) =>
    dispatch("runtime-request.respond", ids, {
      threadId: input.threadId,
      requestId: input.requestId,
      answers: input.answers,
    }),
});

export const threadUserInputDismiss = defineAction({
  action: "thread.user-input.dismiss",
  toolName: "t3_escrever_thread_user_input_dismiss",
  title: "Dismiss question",
  description: "Dismiss a pending question without answering it (questions answered by message only).",
  annotations: hints(true),
  inputSchema: threadInput({ requestId: idString }),
  commandType: "thread.user-input.dismiss",
  payloadKind: "dispatch",
  extraIds: NO_IDS,
  guards: [],
  serializeByProject: false,
  targets: (input) => oneThread(input.threadId),
  build: (input, ids) =>
    dispatch("thread.user-input.dismiss", ids, { threadId: input.threadId, requestId: input.requestId }),
});

export const checkpointRollback = defineAction({
  action: "checkpoint.rollback",
  toolName: "t3_escrever_checkpoint_rollback",
  title: "Roll back to checkpoint",
  description: "Roll the thread back to a checkpoint of a checkpoint scope.",
  annotations: hints(true),
  inputSchema: threadInput({ scopeId: idString, checkpointId: idString }),
  commandType: "checkpoint.rollback",
  payloadKind: "dispatch",
  extraIds: NO_IDS,
  guards: [],
  serializeByProject: false,
  targets: (input) => oneThread(input.threadId),
  build: (input, ids) =>
    dispatch("checkpoint.rollback", ids, {
      threadId: input.threadId,
      scopeId: input.scopeId,
      checkpointId: input.checkpointId,
    }),
});
