/** Actions 1-17: a thread's lifecycle, overlays (settle, snooze, pin, visit) and settings. */
import { z } from "zod";
import { defineAction, dispatch, hints, oneThread, threadInput, threadOnlyInput } from "./define.js";
import { idString, interactionMode, isoDateTime, runtimeMode, titleText, toUtcIso } from "./fields.js";
import { noActiveRun, noPendingRequest } from "./guards.js";

const NO_IDS = [] as const;

export const threadArchive = defineAction({
  action: "thread.archive",
  toolName: "t3_escrever_thread_archive",
  title: "Archive thread",
  description: "Move a thread to the archive; thread.unarchive brings it back.",
  annotations: hints(false),
  inputSchema: threadOnlyInput,
  commandType: "thread.archive",
  payloadKind: "dispatch",
  extraIds: NO_IDS,
  guards: [],
  serializeByProject: false,
  targets: (input) => oneThread(input.threadId),
  build: (input, ids) => dispatch("thread.archive", ids, { threadId: input.threadId }),
});

export const threadUnarchive = defineAction({
  action: "thread.unarchive",
  toolName: "t3_escrever_thread_unarchive",
  title: "Unarchive thread",
  description: "Bring an archived thread back to the active list.",
  annotations: hints(false),
  inputSchema: threadOnlyInput,
  commandType: "thread.unarchive",
  payloadKind: "dispatch",
  extraIds: NO_IDS,
  guards: [],
  serializeByProject: false,
  targets: (input) => oneThread(input.threadId),
  build: (input, ids) => dispatch("thread.unarchive", ids, { threadId: input.threadId }),
});

export const threadDelete = defineAction({
  action: "thread.delete",
  toolName: "t3_escrever_thread_delete",
  title: "Delete thread",
  description: "Delete a thread. This cannot be undone from the connector.",
  annotations: hints(true),
  inputSchema: threadOnlyInput,
  commandType: "thread.delete",
  payloadKind: "dispatch",
  extraIds: NO_IDS,
  guards: [],
  serializeByProject: false,
  targets: (input) => oneThread(input.threadId),
  build: (input, ids) => dispatch("thread.delete", ids, { threadId: input.threadId }),
});

/** Settle and snooze hide a thread; doing so under a live run or open request loses track of it. */
const quietThreadInput = threadInput({
  allowActiveRun: z.boolean().optional(),
  allowPendingRequest: z.boolean().optional(),
});
const quietThreadGuards = [noActiveRun("allowActiveRun"), noPendingRequest("allowPendingRequest")] as const;

export const threadSettle = defineAction({
  action: "thread.settle",
  toolName: "t3_escrever_thread_settle",
  title: "Settle thread",
  description:
    "Mark a thread as done. Refused while a run is in flight or a request is pending unless allowActiveRun / allowPendingRequest is true.",
  annotations: hints(false),
  inputSchema: quietThreadInput,
  commandType: "thread.settle",
  payloadKind: "dispatch",
  extraIds: NO_IDS,
  guards: quietThreadGuards,
  serializeByProject: false,
  targets: (input) => oneThread(input.threadId),
  build: (input, ids) => dispatch("thread.settle", ids, { threadId: input.threadId }),
});

export const threadPin = defineAction({
  action: "thread.pin",
  toolName: "t3_escrever_thread_pin",
  title: "Pin thread",
  description: "Pin a thread to the top of the sidebar.",
  annotations: hints(false),
  inputSchema: threadOnlyInput,
  commandType: "thread.pin",
  payloadKind: "dispatch",
  extraIds: NO_IDS,
  guards: [],
  serializeByProject: false,
  targets: (input) => oneThread(input.threadId),
  build: (input, ids) => dispatch("thread.pin", ids, { threadId: input.threadId }),
});

export const threadUnpin = defineAction({
  action: "thread.unpin",
  toolName: "t3_escrever_thread_unpin",
  title: "Unpin thread",
  description: "Remove a thread's pin.",
  annotations: hints(false),
  inputSchema: threadOnlyInput,
  commandType: "thread.unpin",
  payloadKind: "dispatch",
  extraIds: NO_IDS,
  guards: [],
  serializeByProject: false,
  targets: (input) => oneThread(input.threadId),
  build: (input, ids) => dispatch("thread.unpin", ids, { threadId: input.threadId }),
});

export const threadUnsnooze = defineAction({
  action: "thread.unsnooze",
  toolName: "t3_escrever_thread_unsnooze",
  title: "Unsnooze thread",
  description: "End a thread's snooze now.",
  annotations: hints(false),
  inputSchema: threadOnlyInput,
  commandType: "thread.unsnooze",
  payloadKind: "dispatch",
  extraIds: NO_IDS,
  guards: [],
  serializeByProject: false,
  targets: (input) => oneThread(input.threadId),
  build: (input, ids) => dispatch("thread.unsnooze", ids, { threadId: input.threadId, reason: "user" }),
});

export const threadMarkUnread = defineAction({
  action: "thread.mark-unread",
  toolName: "t3_escrever_thread_mark_unread",
  title: "Mark thread unread",
  description: "Mark a thread as unread.",
  annotations: hints(false),
  inputSchema: threadOnlyInput,
  commandType: "thread.mark-unread",
  payloadKind: "dispatch",
  extraIds: NO_IDS,
  guards: [],
  serializeByProject: false,
  targets: (input) => oneThread(input.threadId),
  build: (input, ids) => dispatch("thread.mark-unread", ids, { threadId: input.threadId }),
});

export const threadUnsettle = defineAction({
  action: "thread.unsettle",
  toolName: "t3_escrever_thread_unsettle",
  title: "Unsettle thread",
  description: "Return a settled thread to the active work list.",
  annotations: hints(false),
  inputSchema: threadOnlyInput,
  commandType: "thread.unsettle",
  payloadKind: "dispatch",
  extraIds: NO_IDS,
  guards: [],
  serializeByProject: false,
  targets: (input) => oneThread(input.threadId),
  build: (input, ids) => dispatch("thread.unsettle", ids, { threadId: input.threadId, reason: "user" }),
});

export const threadSnooze = defineAction({
  action: "thread.snooze",
  toolName: "t3_escrever_thread_snooze",
  title: "Snooze thread",
  description:
    "Hide a thread until snoozedUntil (ISO date-time). Refused while a run is in flight or a request is pending unless allowActiveRun / allowPendingRequest is true.",
  annotations: hints(false),
  inputSchema: threadInput({
    snoozedUntil: isoDateTime,
    allowActiveRun: z.boolean().optional(),
    allowPendingRequest: z.boolean().optional(),
  }),
  commandType: "thread.snooze",
  payloadKind: "dispatch",
  extraIds: NO_IDS,
  guards: quietThreadGuards,
  serializeByProject: false,
  targets: (input) => oneThread(input.threadId),
  build: (input, ids) =>
    dispatch("thread.snooze", ids, { threadId: input.threadId, snoozedUntil: toUtcIso(input.snoozedUntil) }),
});

export const threadAutoSettleSet = defineAction({
  action: "thread.auto-settle.set",
  toolName: "t3_escrever_thread_auto_settle_set",
  title: "Set thread auto-settle",
  description: "Turn automatic settling of a thread on or off.",
  annotations: hints(false),
  inputSchema: threadInput({ enabled: z.boolean() }),
  commandType: "thread.auto-settle.set",
  payloadKind: "dispatch",
  extraIds: NO_IDS,
  guards: [],
  serializeByProject: false,
  targets: (input) => oneThread(input.threadId),
  build: (input, ids) =>
    dispatch("thread.auto-settle.set", ids, { threadId: input.threadId, enabled: input.enabled }),
});

export const threadPinReorder = defineAction({
  action: "thread.pin.reorder",
  toolName: "t3_escrever_thread_pin_reorder",
  title: "Reorder pinned thread",
  description: "Move a pinned thread to orderKey (a fractional index, sorted lexicographically).",
  annotations: hints(false),
  inputSchema: threadInput({ orderKey: idString }),
  commandType: "thread.pin.reorder",
  payloadKind: "dispatch",
  extraIds: NO_IDS,
  guards: [],
  serializeByProject: false,
  targets: (input) => oneThread(input.threadId),
  build: (input, ids) =>
    dispatch("thread.pin.reorder", ids, { threadId: input.threadId, orderKey: input.orderKey }),
});

export const threadActiveReorder = defineAction({
  action: "thread.active.reorder",
  toolName: "t3_escrever_thread_active_reorder",
  title: "Reorder active thread",
  description: "Move a thread in the active list to orderKey (a fractional index).",
  annotations: hints(false),
  inputSchema: threadInput({ orderKey: idString }),
  commandType: "thread.active.reorder",
  payloadKind: "dispatch",
  extraIds: NO_IDS,
  guards: [],
  serializeByProject: false,
  targets: (input) => oneThread(input.threadId),
  build: (input, ids) =>
    dispatch("thread.active.reorder", ids, { threadId: input.threadId, orderKey: input.orderKey }),
});

export const threadVisit = defineAction({
  action: "thread.visit",
  toolName: "t3_escrever_thread_visit",
  title: "Mark thread visited",
  description: "Record that the thread was read at visitedAt (ISO date-time); T3 keeps the latest.",
  annotations: hints(false),
  inputSchema: threadInput({ visitedAt: isoDateTime }),
  commandType: "thread.visit",
  payloadKind: "dispatch",
  extraIds: NO_IDS,
  guards: [],
  serializeByProject: false,
  targets: (input) => oneThread(input.threadId),
  build: (input, ids) =>
    dispatch("thread.visit", ids, { threadId: input.threadId, visitedAt: toUtcIso(input.visitedAt) }),
});

export const threadTitle = defineAction({
  action: "thread.title",
  toolName: "t3_escrever_thread_title",
  title: "Rename thread",
  description: "Set a thread's title (sent as thread.metadata.update).",
  annotations: hints(false),
  inputSchema: threadInput({ title: titleText }),
  commandType: "thread.metadata.update",
  payloadKind: "dispatch",
  extraIds: NO_IDS,
  guards: [],
  serializeByProject: false,
  targets: (input) => oneThread(input.threadId),
  build: (input, ids) =>
    dispatch("thread.metadata.update", ids, { threadId: input.threadId, title: input.title }),
});

export const threadRuntimeModeSet = defineAction({
  action: "thread.runtime-mode.set",
  toolName: "t3_escrever_thread_runtime_mode_set",
  title: "Set thread runtime mode",
  description:
    "Set what the agent may do without asking: approval-required, auto-accept-edits, auto or full-access.",
  // Widening the mode lets the agent act unsupervised, so clients should confirm it like a destructive write.
  annotations: hints(true),
  // No default here: a settings write must say which mode it sets.
  inputSchema: threadInput({ runtimeMode }),
  commandType: "thread.runtime-mode.set",
  payloadKind: "dispatch",
  extraIds: NO_IDS,
  guards: [],
  serializeByProject: false,
  targets: (input) => oneThread(input.threadId),
  build: (input, ids) =>
    dispatch("thread.runtime-mode.set", ids, { threadId: input.threadId, runtimeMode: input.runtimeMode }),
});

export const threadInteractionModeSet = defineAction({
  action: "thread.interaction-mode.set",
  toolName: "t3_escrever_thread_interaction_mode_set",
  title: "Set thread interaction mode",
  description: "Switch a thread between default and plan interaction.",
  annotations: hints(false),
  inputSchema: threadInput({ interactionMode }),
  commandType: "thread.interaction-mode.set",
  payloadKind: "dispatch",
  extraIds: NO_IDS,
  guards: [],
  serializeByProject: false,
  targets: (input) => oneThread(input.threadId),
  build: (input, ids) =>
    dispatch("thread.interaction-mode.set", ids, {
      threadId: input.threadId,
      interactionMode: input.interactionMode,
    }),
});
