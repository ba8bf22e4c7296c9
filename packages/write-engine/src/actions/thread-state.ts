/** Actions 1-17: a thread's lifecycle, overlays (settle, snooze, pin, visit) and settings. */
import { z } from "zod";
import { defineAction, dispatch, hints, oneThread, threadInput, threadOnlyInput } from "./define.js";
import { idString, interactionMode, isoDateTime, runtimeMode, titleText, toUtcIso } from "./fields.js";
import { noActiveRun, noPendingRequest } from "./guards.js";

const NO_IDS = [] as const;

export const threadArchive = defineAction({
  action: "thread.archive",
  toolName: "t3_escrever_thread_archive",
  label: "Archive a thread",
  group: "organize",
  description: "Moves the thread to the archive; it can be brought back.",
  toolNotes: "thread.unarchive brings it back.",
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
  label: "Unarchive a thread",
  group: "organize",
  description: "Brings an archived thread back to the active list.",
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
  label: "Delete a thread",
  group: "destructive",
  description: "Deletes the thread and its conversation; this cannot be undone.",
  toolNotes: "This cannot be undone from the connector.",
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
  label: "Mark a thread done",
  group: "organize",
  description: "Marks the thread as settled (done) so it leaves the work list.",
  toolNotes:
    "Refused while a run is in flight or a request is pending unless allowActiveRun / allowPendingRequest is true.",
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
  label: "Pin a thread",
  group: "organize",
  description: "Pins the thread to the top of the sidebar.",
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
  label: "Unpin a thread",
  group: "organize",
  description: "Removes the thread's pin.",
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
  label: "Wake a snoozed thread",
  group: "organize",
  description: "Ends the thread's snooze now.",
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
  label: "Mark a thread unread",
  group: "organize",
  description: "Marks the thread as unread.",
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
  label: "Reopen a done thread",
  group: "organize",
  description: "Returns a settled thread to the active work list.",
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
  label: "Snooze a thread",
  group: "organize",
  description: "Hides the thread until a chosen time.",
  toolNotes:
    "snoozedUntil is an ISO date-time. Refused while a run is in flight or a request is pending unless allowActiveRun / allowPendingRequest is true.",
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
  label: "Turn auto-settle on or off",
  group: "organize",
  description: "Turns automatic settling of the thread on or off.",
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
  label: "Reorder pinned threads",
  group: "organize",
  description: "Moves a pinned thread to another place among the pinned ones.",
  toolNotes: "orderKey is a fractional index, sorted lexicographically.",
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
  label: "Reorder active threads",
  group: "organize",
  description: "Moves the thread to another place in the active list.",
  toolNotes: "orderKey is a fractional index.",
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
  label: "Mark a thread read",
  group: "organize",
  description: "Records that the thread was read at a given time.",
  toolNotes: "visitedAt is an ISO date-time; T3 keeps the latest.",
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
  label: "Rename a thread",
  group: "organize",
  description: "Sets the thread's title.",
  toolNotes: "Sent as thread.metadata.update.",
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
  label: "Change what the agent may do unasked",
  group: "run",
  description: "Sets the thread's runtime mode: approval-required, auto-accept-edits, auto or full-access.",
  toolNotes:
    "Widening the mode lets the agent act unsupervised; confirm it with the user like a destructive write.",
  // Widening the mode lets the agent act unsupervised, so clients should confirm it like a destructive write.
  annotations: hints(true),
  // No default here: a settings write must say which mode it sets.
  inputSchema: threadInput({ runtimeMode }),
  runtimeModeField: "runtimeMode",
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
  label: "Switch plan mode",
  group: "run",
  description: "Switches the thread between default and plan interaction.",
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
