/** Actions 1-17: a thread's lifecycle, overlays (settle, snooze, pin, visit) and settings. */
import { z } from "zod";
import { defineAction, threadInput, threadOnlyInput } from "./define.js";
import { idString, interactionMode, isoDateTime, runtimeMode, titleText, toUtcIso } from "./fields.js";
import { noActiveRun, noPendingRequest } from "./guards.js";

export const threadArchive = defineAction({
  action: "thread.archive",
  label: "Archive a thread",
  group: "organize",
  runEffect: "runs-nothing",
  description: "Moves the thread to the archive; it can be brought back.",
  inputSchema: threadOnlyInput,
  fields: (input) => ({ threadId: input.threadId }),
});

export const threadUnarchive = defineAction({
  action: "thread.unarchive",
  label: "Unarchive a thread",
  group: "organize",
  runEffect: "runs-nothing",
  description: "Brings an archived thread back to the active list.",
  inputSchema: threadOnlyInput,
  fields: (input) => ({ threadId: input.threadId }),
});

export const threadDelete = defineAction({
  action: "thread.delete",
  label: "Delete a thread",
  group: "destructive",
  runEffect: "runs-nothing",
  description: "Deletes the thread and its conversation; this cannot be undone.",
  inputSchema: threadOnlyInput,
  fields: (input) => ({ threadId: input.threadId }),
});

/** Settle and snooze hide a thread; doing so under a live run or open request loses track of it. */
const quietThreadInput = threadInput({
  allowActiveRun: z.boolean().optional(),
  allowPendingRequest: z.boolean().optional(),
});
const quietThreadGuards = [noActiveRun("allowActiveRun"), noPendingRequest("allowPendingRequest")] as const;

export const threadSettle = defineAction({
  action: "thread.settle",
  label: "Mark a thread done",
  group: "organize",
  runEffect: "runs-nothing",
  description: "Marks the thread as settled (done) so it leaves the work list.",
  inputSchema: quietThreadInput,
  guards: quietThreadGuards,
  fields: (input) => ({ threadId: input.threadId }),
});

export const threadPin = defineAction({
  action: "thread.pin",
  label: "Pin a thread",
  group: "organize",
  runEffect: "runs-nothing",
  description: "Pins the thread to the top of the sidebar.",
  inputSchema: threadOnlyInput,
  fields: (input) => ({ threadId: input.threadId }),
});

export const threadUnpin = defineAction({
  action: "thread.unpin",
  label: "Unpin a thread",
  group: "organize",
  runEffect: "runs-nothing",
  description: "Removes the thread's pin.",
  inputSchema: threadOnlyInput,
  fields: (input) => ({ threadId: input.threadId }),
});

export const threadUnsnooze = defineAction({
  action: "thread.unsnooze",
  label: "Wake a snoozed thread",
  group: "organize",
  runEffect: "runs-nothing",
  description: "Ends the thread's snooze now.",
  inputSchema: threadOnlyInput,
  fields: (input) => ({ threadId: input.threadId, reason: "user" }),
});

export const threadMarkUnread = defineAction({
  action: "thread.mark-unread",
  label: "Mark a thread unread",
  group: "organize",
  runEffect: "runs-nothing",
  description: "Marks the thread as unread.",
  inputSchema: threadOnlyInput,
  fields: (input) => ({ threadId: input.threadId }),
});

export const threadUnsettle = defineAction({
  action: "thread.unsettle",
  label: "Reopen a done thread",
  group: "organize",
  runEffect: "runs-nothing",
  description: "Returns a settled thread to the active work list.",
  inputSchema: threadOnlyInput,
  fields: (input) => ({ threadId: input.threadId, reason: "user" }),
});

export const threadSnooze = defineAction({
  action: "thread.snooze",
  label: "Snooze a thread",
  group: "organize",
  runEffect: "runs-nothing",
  description: "Hides the thread until a chosen time.",
  inputSchema: threadInput({
    snoozedUntil: isoDateTime,
    allowActiveRun: z.boolean().optional(),
    allowPendingRequest: z.boolean().optional(),
  }),
  guards: quietThreadGuards,
  fields: (input) => ({ threadId: input.threadId, snoozedUntil: toUtcIso(input.snoozedUntil) }),
});

export const threadAutoSettleSet = defineAction({
  action: "thread.auto-settle.set",
  label: "Turn auto-settle on or off",
  group: "organize",
  runEffect: "runs-nothing",
  description: "Turns automatic settling of the thread on or off.",
  inputSchema: threadInput({ enabled: z.boolean() }),
  fields: (input) => ({ threadId: input.threadId, enabled: input.enabled }),
});

export const threadPinReorder = defineAction({
  action: "thread.pin.reorder",
  label: "Reorder pinned threads",
  group: "organize",
  runEffect: "runs-nothing",
  description: "Moves a pinned thread to another place among the pinned ones.",
  inputSchema: threadInput({ orderKey: idString }),
  fields: (input) => ({ threadId: input.threadId, orderKey: input.orderKey }),
});

export const threadActiveReorder = defineAction({
  action: "thread.active.reorder",
  label: "Reorder active threads",
  group: "organize",
  runEffect: "runs-nothing",
  description: "Moves the thread to another place in the active list.",
  inputSchema: threadInput({ orderKey: idString }),
  fields: (input) => ({ threadId: input.threadId, orderKey: input.orderKey }),
});

export const threadVisit = defineAction({
  action: "thread.visit",
  label: "Mark a thread read",
  group: "organize",
  runEffect: "runs-nothing",
  description: "Records that the thread was read at a given time.",
  inputSchema: threadInput({ visitedAt: isoDateTime }),
  fields: (input) => ({ threadId: input.threadId, visitedAt: toUtcIso(input.visitedAt) }),
});

export const threadTitle = defineAction({
  action: "thread.title",
  label: "Rename a thread",
  group: "organize",
  runEffect: "runs-nothing",
  description: "Sets the thread's title.",
  inputSchema: threadInput({ title: titleText }),
  commandType: "thread.metadata.update",
  fields: (input) => ({ threadId: input.threadId, title: input.title }),
});

export const threadRuntimeModeSet = defineAction({
  action: "thread.runtime-mode.set",
  label: "Change what the agent may do unasked",
  group: "run",
  // A mode change reaches only runs that start after it: lowering a thread whose agent is running
  // above the ceiling would leave that run as it is and let the lease steer it (ADR 0037).
  runEffect: "sets-mode",
  effectHolds: (_input, thread) => thread.activeRunId !== null,
  ceilingAdvice:
    "wait for its run to end, or stop it with run.interrupt and holdQueue: true, then lower its mode",
  description: "Sets the thread's runtime mode: approval-required, auto-accept-edits, auto or full-access.",
  // No default here: a settings write must say which mode it sets.
  inputSchema: threadInput({ runtimeMode }),
  runtimeModeField: "runtimeMode",
  fields: (input) => ({ threadId: input.threadId, runtimeMode: input.runtimeMode }),
});

export const threadInteractionModeSet = defineAction({
  action: "thread.interaction-mode.set",
  label: "Switch plan mode",
  group: "run",
  // Leaving plan mode lets the thread's queued and next runs act, not only plan; entering it only restricts.
  runEffect: "changes-run",
  effectHolds: (input) => input.interactionMode === "default",
  description: "Switches the thread between default and plan interaction.",
  inputSchema: threadInput({ interactionMode }),
  fields: (input) => ({
    threadId: input.threadId,
    interactionMode: input.interactionMode,
  }),
});
