/**
 * Commands that drive runs: message.dispatch with its five dispatch modes, interrupts,
 * the queue, runtime-request answers, prepared runs, checkpoints and provider sessions.
 */
import { recordTurnInput } from "../agent-work.js";
import { cwdOf } from "../engine.js";
import { projectNotFoundForRun } from "../errors.js";
import { latestRun } from "../latest-run.js";
import { subagentThreadReadOnly } from "../orchestrator-errors.js";
import { activeRun, queuedRuns } from "../projection.js";
import { closeRuntimeRequest, failRun, interruptRun } from "../provider-steps.js";
import { attemptItemPlace, type UserMessageInput } from "../run-records.js";
import {
  addSteerMessage,
  createRun,
  isBusy,
  promoteToStarting,
  renumberQueue,
  restartAttempt,
  setQueueHeld,
} from "../runs.js";
import type { ThreadRecord, Tx } from "../store.js";
import { type ModelSelection, type Run, TERMINAL_RUN_STATUSES } from "../types.js";
import { type CommandContext, type CommandHandler, reject, requireThread, str } from "./context.js";
import {
  failPrepareItem,
  openPrepareItem,
  prepareItemIdFor,
  WORKSPACE_PREPARATION_FAILURE_CODE,
} from "./newer-handlers.js";

type DispatchMode = { type: string; targetRunId?: string; workspaceStrategy?: Record<string, unknown> };

function requireRun(record: ThreadRecord, runId: string): Run {
  const run = record.runs.get(runId);
  if (!run) reject(`Run ${runId} does not exist on thread ${record.thread.id}.`);
  return run;
}

/** Dispatching to a settled or snoozed thread lifts those overlays first. */
function liftOverlays(tx: Tx): void {
  const thread = tx.record.thread;
  if (thread.settledAt || thread.settledOverride === "settled") {
    tx.thread("thread.unsettled", { settledOverride: null, settledAt: null });
  }
  if (thread.snoozedUntil) tx.thread("thread.unsnoozed", { snoozedUntil: null, snoozedAt: null });
}

/** A question answered "by message" is resolved by the next user message. */
function resolveMessageRequests(tx: Tx, text: string): void {
  for (const request of tx.record.runtimeRequests.values()) {
    if (request.status === "pending" && request.responseCapability.type === "message") {
      closeRuntimeRequest(tx, request, { status: "resolved", answers: { message: text } });
    }
  }
}

export interface MessageSpec extends UserMessageInput {
  modelSelection?: ModelSelection;
  dispatchMode: DispatchMode;
  /** First message only: becomes the thread title. */
  titleSeed?: string;
  /** "Implement this plan": the referenced proposed plan is no longer actionable. */
  sourcePlanRef?: { threadId: string; planId: string };
}

/** Shared by message.dispatch and launchThread's initial message. */
export function dispatchMessage(
  ctx: CommandContext,
  record: ThreadRecord,
  commandId: string | null,
  spec: MessageSpec,
): number {
  const thread = record.thread;
  if (!ctx.store.projects.has(thread.projectId))
    throw projectNotFoundForRun(thread.providerInstanceId, thread.projectId);
  if (record.messages.has(spec.messageId)) reject(`Message ${spec.messageId} already exists.`);
  const mode = spec.dispatchMode;
  const model = spec.modelSelection ?? thread.modelSelection;
  const message: UserMessageInput = spec;
  const cwd = cwdOf(ctx.store, record);
  if (mode.type === "steer_active" || mode.type === "restart_active") {
    const target = requireRun(record, mode.targetRunId ?? "");
    if (mode.type === "steer_active" && target.status !== "running") {
      reject(`Run ${target.id} is ${target.status}; only a running run can be steered.`);
    }
    if (mode.type === "restart_active" && !["starting", "running", "waiting"].includes(target.status)) {
      reject(`Run ${target.id} is ${target.status}; only an active run can be restarted.`);
    }
    let restarted: Run | undefined;
    const sequence = ctx.store.transact(record, commandId, (tx) => {
      liftOverlays(tx);
      resolveMessageRequests(tx, spec.text);
      if (mode.type === "restart_active") restarted = restartAttempt(tx, target);
      addSteerMessage(tx, restarted ?? target, message, "steer");
    });
    if (restarted) {
      ctx.engine.reassign(thread.id, restarted.id, restarted.modelSelection, spec.text);
      ctx.engine.start(record, restarted);
    } else recordTurnInput(ctx.store, record, target.id, "steered");
    return sequence;
  }
  const busy = isBusy(record);
  const initialStatus = mode.type === "defer_start" ? "preparing" : busy ? "queued" : "starting";
  if (mode.type === "defer_start" && busy) reject(`Thread ${thread.id} already has an active run.`);
  let run: Run | undefined;
  const sequence = ctx.store.transact(record, commandId, (tx) => {
    liftOverlays(tx);
    resolveMessageRequests(tx, spec.text);
    if (spec.titleSeed && record.messages.size === 0)
      tx.thread("thread.metadata-updated", { title: spec.titleSeed });
    const plan =
      spec.sourcePlanRef?.threadId === thread.id ? record.plans.get(spec.sourcePlanRef.planId) : undefined;
    if (plan?.status === "active") tx.plan({ ...plan, status: "completed" });
    run = createRun(tx, { message, modelSelection: model, initialStatus, cwd });
    // Current upstream shows a deferred start's workspace preparation as a command item.
    if (ctx.newer && run.status === "preparing") {
      if (mode.workspaceStrategy) run = tx.run({ ...run, workspacePreparation: mode.workspaceStrategy });
      openPrepareItem(tx, run);
    }
  });
  if (run) {
    ctx.engine.assign(thread.id, run.id, model, spec.text);
    if (run.status === "starting") ctx.engine.start(record, run);
  }
  return sequence;
}

/** A subagent the provider spawned owns its conversation (upstream's isProviderNativeSubagentThread). */
function isProviderNativeSubagent(record: ThreadRecord): boolean {
  const thread = record.thread;
  return thread.lineage.relationshipToParent === "subagent" && thread.creationSource === "provider";
}

export const messageDispatch: CommandHandler = (ctx, c) => {
  const record = requireThread(ctx, c.threadId);
  if (ctx.newer && isProviderNativeSubagent(record)) throw subagentThreadReadOnly(record.thread.id);
  const requested = c.dispatchMode as DispatchMode;
  // Newer servers resolve `deliveryIntent` against the thread state.
  let dispatchMode = requested;
  const active = activeRun(record);
  if (c.deliveryIntent === "steer" && active) dispatchMode = { type: "steer_active", targetRunId: active.id };
  if (c.deliveryIntent === "restart" && active)
    dispatchMode = { type: "restart_active", targetRunId: active.id };
  if (c.deliveryIntent === "auto") {
    dispatchMode =
      active?.status === "running"
        ? { type: "steer_active", targetRunId: active.id }
        : { type: "start_immediately" };
  }
  return dispatchMessage(ctx, record, c.commandId, {
    messageId: str(c, "messageId"),
    text: str(c, "text"),
    attachments: (c.attachments as unknown[]) ?? [],
    createdBy: "user",
    creationSource: c.creationSource as UserMessageInput["creationSource"],
    modelSelection: c.modelSelection as ModelSelection | undefined,
    titleSeed: c.titleSeed as string | undefined,
    sourcePlanRef: c.sourcePlanRef as MessageSpec["sourcePlanRef"],
    ...(c.delegatedCompletion
      ? { delegatedCompletion: c.delegatedCompletion as UserMessageInput["delegatedCompletion"] }
      : {}),
    dispatchMode,
  });
};

export const runInterrupt: CommandHandler = (ctx, c) => {
  const record = requireThread(ctx, c.threadId);
  const run = requireRun(record, str(c, "runId"));
  if (run.status === "queued") reject(`Run ${run.id} is queued; cancel it with queued-run.cancel.`);
  if (TERMINAL_RUN_STATUSES.includes(run.status)) reject(`Run ${run.id} is already ${run.status}.`);
  ctx.engine.stop(run.id);
  const sequence = ctx.store.transact(record, c.commandId, (tx) => {
    // Only a queue that exists can be held; `queue.resume` releases it.
    if (c.holdQueue === true && queuedRuns(record).length > 0) setQueueHeld(tx, true);
    interruptRun(tx, run, c.reason as string | undefined);
  });
  ctx.engine.runEnded(record);
  return sequence;
};

export const queueResume: CommandHandler = (ctx, c) => {
  const record = requireThread(ctx, c.threadId);
  if (!record.queueHeld) reject(`The queue of thread ${record.thread.id} is not held.`);
  const sequence = ctx.store.transact(record, c.commandId, (tx) => setQueueHeld(tx, false));
  ctx.engine.advanceQueue(record);
  return sequence;
};

function requireQueued(record: ThreadRecord, runId: string): Run {
  const run = requireRun(record, runId);
  if (run.status !== "queued") reject(`Run ${run.id} is ${run.status}, not queued.`);
  return run;
}

export const queuedRunCancel: CommandHandler = (ctx, c) => {
  const record = requireThread(ctx, c.threadId);
  const run = requireQueued(record, str(c, "runId"));
  return ctx.store.transact(record, c.commandId, (tx) => {
    const { queueHeld: _held, ...rest } = run;
    tx.run({ ...rest, status: "cancelled", queuePosition: null, completedAt: tx.now });
    renumberQueue(tx);
    if (queuedRuns(record).length === 0) record.queueHeld = false;
  });
};

export const queuedRunReorder: CommandHandler = (ctx, c) => {
  const record = requireThread(ctx, c.threadId);
  const run = requireQueued(record, str(c, "runId"));
  const beforeRunId = c.beforeRunId as string | null;
  if (beforeRunId !== null) requireQueued(record, beforeRunId);
  const order = queuedRuns(record).filter((r) => r.id !== run.id);
  const index = beforeRunId === null ? order.length : order.findIndex((r) => r.id === beforeRunId);
  order.splice(index, 0, run);
  return ctx.store.transact(record, c.commandId, (tx) => {
    order.forEach((r, i) => {
      tx.run({ ...r, queuePosition: i + 1 });
    });
  });
};

export const queuedRunEdit: CommandHandler = (ctx, c) => {
  const record = requireThread(ctx, c.threadId);
  const run = requireQueued(record, str(c, "runId"));
  const message = record.messages.get(run.userMessageId);
  if (!message) reject(`Run ${run.id} has no message to edit.`);
  const sequence = ctx.store.transact(record, c.commandId, (tx) => {
    const attachments = (c.attachments as unknown[] | undefined) ?? message.attachments;
    const edited = tx.message({ ...message, text: str(c, "text"), attachments, updatedAt: tx.now });
    const itemId = `turn-item:message:${edited.id}`;
    const item = tx.record.turnItems.get(itemId);
    if (item) tx.item({ ...item, text: edited.text, attachments, updatedAt: tx.now });
  });
  // The edited text is what the run does once it starts: its script follows the new text.
  ctx.engine.reassign(record.thread.id, run.id, run.modelSelection, str(c, "text"));
  return sequence;
};

export const promoteToSteer: CommandHandler = (ctx, c) => {
  const record = requireThread(ctx, c.threadId);
  const queued = requireQueued(record, str(c, "queuedRunId"));
  const target = requireRun(record, str(c, "targetRunId"));
  if (target.status !== "running")
    reject(`Run ${target.id} is ${target.status}; only a running run can be steered.`);
  const message = record.messages.get(queued.userMessageId);
  if (!message) reject(`Run ${queued.id} has no message.`);
  const sequence = ctx.store.transact(record, c.commandId, (tx) => {
    const { queueHeld: _held, ...rest } = queued;
    tx.run({ ...rest, status: "cancelled", queuePosition: null, completedAt: tx.now });
    addSteerMessage(tx, target, { ...message, messageId: message.id }, "promoted_queued_to_steer");
    renumberQueue(tx);
  });
  recordTurnInput(ctx.store, record, target.id, "steered");
  return sequence;
};

export const runtimeRequestRespond: CommandHandler = (ctx, c) => {
  const record = requireThread(ctx, c.threadId);
  const request = record.runtimeRequests.get(str(c, "requestId"));
  if (!request) reject(`Runtime request ${str(c, "requestId")} does not exist.`);
  if (request.status !== "pending")
    reject(`Runtime request ${request.id} is ${request.status}, not pending.`);
  if (request.responseCapability.type === "not_resumable") {
    reject(`Runtime request ${request.id} cannot be resumed: ${request.responseCapability.reason}`);
  }
  const decision = c.decision as string | undefined;
  const answers = c.answers as Record<string, unknown> | undefined;
  if (request.kind === "user_input" && !answers) reject(`Runtime request ${request.id} needs answers.`);
  if (request.kind !== "user_input" && !decision) reject(`Runtime request ${request.id} needs a decision.`);
  const runId = record.nodes.get(request.nodeId)?.runId ?? null;
  const sequence = ctx.store.transact(record, c.commandId, (tx) => {
    closeRuntimeRequest(tx, request, {
      status: "resolved",
      ...(decision !== undefined ? { decision } : {}),
      ...(answers !== undefined ? { answers } : {}),
    });
  });
  if (runId) {
    recordTurnInput(ctx.store, record, runId, "resumed");
    ctx.engine.resume(runId, { ...(decision ? { decision } : {}), ...(answers ? { answers } : {}) });
  }
  return sequence;
};

/** Only questions answered by message can be dismissed. */
export const userInputDismiss: CommandHandler = (ctx, c) => {
  const record = requireThread(ctx, c.threadId);
  const request = record.runtimeRequests.get(str(c, "requestId"));
  if (!request) reject(`Runtime request ${str(c, "requestId")} does not exist.`);
  if (request.kind !== "user_input" || request.responseCapability.type !== "message") {
    reject(`Runtime request ${request.id} is not a question answered by message.`);
  }
  if (request.status !== "pending")
    reject(`Runtime request ${request.id} is ${request.status}, not pending.`);
  return ctx.store.transact(record, c.commandId, (tx) =>
    closeRuntimeRequest(tx, request, { status: "cancelled" }),
  );
};

function requirePrepared(record: ThreadRecord, runId: string): Run {
  const run = requireRun(record, runId);
  if (run.status !== "preparing") reject(`Run ${run.id} is ${run.status}, not preparing.`);
  return run;
}

export const preparedRunRelease: CommandHandler = (ctx, c) => {
  const record = requireThread(ctx, c.threadId);
  const run = requirePrepared(record, str(c, "runId"));
  let started: Run | undefined;
  const sequence = ctx.store.transact(record, c.commandId, (tx) => {
    const prepared = tx.record.turnItems.get(prepareItemIdFor(run.id));
    if (prepared?.status === "running")
      tx.item({ ...prepared, status: "completed", exitCode: 0, completedAt: tx.now, updatedAt: tx.now });
    started = promoteToStarting(tx, run, cwdOf(ctx.store, record));
  });
  if (started) ctx.engine.start(record, started);
  return sequence;
};

export const preparedRunProgress: CommandHandler = (ctx, c) => {
  const record = requireThread(ctx, c.threadId);
  const run = requirePrepared(record, str(c, "runId"));
  return ctx.store.transact(record, c.commandId, (tx) => {
    tx.item({
      id: `turn-item:run:${encodeURIComponent(run.id)}:prepare:${str(c, "phase")}`,
      ...attemptItemPlace(tx, run, undefined, null),
      parentItemId: null,
      ordinal: tx.nextItemOrdinal(),
      status: "completed",
      title: `Preparing ${str(c, "phase")}`,
      startedAt: tx.now,
      completedAt: tx.now,
      updatedAt: tx.now,
      type: "system_notice",
      message: `Run preparation reached the ${str(c, "phase")} phase.`,
    });
  });
};

export const preparedRunFail: CommandHandler = (ctx, c) => {
  const record = requireThread(ctx, c.threadId);
  const run = requirePrepared(record, str(c, "runId"));
  const failure = c.failure as { message: string; class: string; code: string | null };
  const sequence = ctx.store.transact(record, c.commandId, (tx) => {
    const preparing = tx.record.turnItems.has(prepareItemIdFor(run.id));
    if (preparing) failPrepareItem(tx, run, failure.message);
    failRun(
      tx,
      run,
      failure.message,
      failure.class,
      preparing ? WORKSPACE_PREPARATION_FAILURE_CODE : (failure.code ?? null),
    );
  });
  ctx.engine.runEnded(record);
  return sequence;
};

/** The folder a thread works in: its own worktree, or its project's root. */
function workspaceOf(ctx: CommandContext, record: ThreadRecord): string | null {
  return record.thread.worktreePath ?? ctx.store.projects.get(record.thread.projectId)?.workspaceRoot ?? null;
}

/**
 * Current upstream refuses to restore files in a workspace another thread works in. The
 * simulator's reading (docs/simulator-fidelity.md): a dedicated worktree (`worktreePath`) that
 * another live, unarchived thread also names.
 */
function sharedWorktree(ctx: CommandContext, record: ThreadRecord): string | null {
  const path = record.thread.worktreePath;
  if (!path) return null;
  for (const other of ctx.store.threads.values()) {
    if (other === record || other.thread.deletedAt || other.thread.archivedAt) continue;
    if (other.thread.worktreePath === path) return other.thread.id;
  }
  return null;
}

export const checkpointRollback: CommandHandler = (ctx, c) => {
  const record = requireThread(ctx, c.threadId);
  const checkpoint = record.checkpoints.get(str(c, "checkpointId"));
  if (!checkpoint || checkpoint.scopeId !== str(c, "scopeId")) {
    reject(`Rollback target ${str(c, "checkpointId")} is unavailable for thread ${record.thread.id}.`);
  }
  if (activeRun(record)) reject(`Thread ${record.thread.id} has an active run.`);
  const restoreFiles = c.restoreFiles !== false;
  if (ctx.newer && restoreFiles) {
    const sharer = sharedWorktree(ctx, record);
    if (sharer)
      reject(
        `Thread ${record.thread.id} shares its workspace ${workspaceOf(ctx, record)} with thread ${sharer}; files cannot be restored there.`,
      );
  }
  return ctx.store.transact(record, c.commandId, (tx) => {
    // Current upstream records the accepted rollback on the thread first.
    if (ctx.newer)
      tx.thread("thread.metadata-updated", { rollbackRequestId: c.commandId, rollbackFailure: null });
    tx.emit("checkpoint.rollback-requested", {
      scopeId: checkpoint.scopeId,
      checkpointId: checkpoint.id,
      requestedAt: tx.now,
    });
    // Runs after the checkpoint's run are undone.
    const anchor = checkpoint.appRunOrdinal ?? 0;
    for (const run of record.runs.values()) {
      if (run.ordinal > anchor && run.status === "completed") tx.run({ ...run, status: "rolled_back" });
    }
    const latest = latestRun(record);
    const emitted = ctx.newer ? 2 : 1;
    if (latest && latest.ordinal === anchor && tx.pending.length === emitted) tx.run({ ...latest });
  });
};

export const providerSessionDetach: CommandHandler = (ctx, c) => {
  const record = requireThread(ctx, c.threadId);
  const session = record.providerSessions.get(str(c, "providerSessionId"));
  if (!session)
    reject(`Provider session ${str(c, "providerSessionId")} is not attached to thread ${record.thread.id}.`);
  return ctx.store.transact(record, c.commandId, (tx) => {
    record.providerSessions.delete(session.id);
    tx.emit(
      "provider-session.detached",
      { providerSessionId: session.id, detachedAt: tx.now, ...(c.reason ? { reason: c.reason } : {}) },
      { driver: session.driver, providerInstanceId: session.providerInstanceId },
    );
  });
};
