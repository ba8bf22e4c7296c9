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
  label: "Change the model",
  group: "run",
  description: "Sets the model (and its options) the thread's next run uses.",
  toolNotes: "Stays on the thread's current provider instance.",
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
  label: "Switch provider",
  group: "run",
  description: "Moves the thread to another provider instance and model.",
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
  label: "Detach the provider session",
  group: "run",
  description: "Detaches the thread's provider session, ending its process.",
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
  label: "Stop a run",
  group: "run",
  description: "Stops the running agent turn.",
  toolNotes: "With holdQueue: true, queued runs wait for queue.resume instead of starting.",
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
  label: "Start a prepared run",
  group: "run",
  description: "Lets a prepared run start.",
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

/**
 * Newer T3 servers only: a failed workspace preparation is tried again and the run goes back to
 * `preparing`. Confirmed by reading the thread (the run's status), never by an event name.
 */
export const preparedRunRetry = defineAction({
  action: "prepared-run.retry",
  toolName: "t3_escrever_prepared_run_retry",
  label: "Retry a failed workspace preparation",
  group: "run",
  description:
    "Prepares the workspace of a run whose preparation failed again; the run goes back to preparing.",
  toolNotes: "Only for a run whose workspace preparation failed; needs a T3 that accepts prepared-run.retry.",
  annotations: hints(false),
  inputSchema: threadInput({ runId: idString }),
  commandType: "prepared-run.retry",
  payloadKind: "dispatch",
  extraIds: NO_IDS,
  guards: [],
  serializeByProject: false,
  targets: (input) => oneThread(input.threadId),
  build: (input, ids) =>
    dispatch("prepared-run.retry", ids, { threadId: input.threadId, runId: input.runId }),
});

export const queueResume = defineAction({
  action: "queue.resume",
  toolName: "t3_escrever_queue_resume",
  label: "Resume the queue",
  group: "run",
  description: "Lets runs held in the thread's queue start again.",
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
  label: "Cancel a queued message",
  group: "run",
  description: "Removes a queued message before it starts.",
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
  label: "Reorder queued messages",
  group: "run",
  description: "Moves a queued message earlier or later in the queue.",
  toolNotes: "Moves it before beforeRunId, or to the end when beforeRunId is null.",
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
  label: "Edit a queued message",
  group: "run",
  description: "Replaces the text (and attachments) of a queued message before it starts.",
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
  label: "Send a queued message now",
  group: "run",
  description: "Delivers a queued message into the running turn now instead of after it.",
  toolNotes: "targetRunId is the running run.",
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
  label: "Answer the agent's permission request",
  group: "run",
  description: "Accepts or declines something the agent asked permission for (a command, an edit).",
  toolNotes: "Sent as runtime-request.respond.",
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
  label: "Answer the agent's question",
  group: "run",
  description: "Answers a question the agent asked.",
  toolNotes: "Answers are keyed by question id (sent as runtime-request.respond).",
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
  label: "Dismiss the agent's question",
  group: "run",
  description: "Dismisses a pending question without answering it.",
  toolNotes: "For questions answered by message only.",
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
  label: "Roll back to a checkpoint",
  group: "destructive",
  description:
    "Rolls the thread back to an earlier checkpoint, discarding what came after (and the files, when asked).",
  toolNotes: "restoreFiles also restores the workspace files.",
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
