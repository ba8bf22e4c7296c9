/**
 * Commands that relate threads: fork, merge back, delegated tasks and their bookkeeping. The sim
 * keeps these shallow (see docs/simulator-fidelity.md): the right events and lineage
 * fields, without a provider-side context handoff.
 */
import { visibleTurnItems } from "../projection.js";
import type { ThreadRecord } from "../store.js";
import type { AppThread, ModelSelection, Run } from "../types.js";
import { type CommandContext, type CommandHandler, reject, requireThread, str } from "./context.js";
import { dispatchMessage } from "./run-handlers.js";
import { createThread } from "./thread-handlers.js";

type SourcePoint =
  | { type: "latest_stable" }
  | { type: "run"; runId: string }
  | { type: "checkpoint"; checkpointId: string };

/** The run a fork or merge starts from; `latest_stable` is the newest completed run. */
function sourceRun(record: ThreadRecord, point: SourcePoint): Run | undefined {
  const runs = [...record.runs.values()].sort((a, b) => a.ordinal - b.ordinal);
  if (point.type === "run") {
    const run = record.runs.get(point.runId);
    if (!run) reject(`Run ${point.runId} does not exist on thread ${record.thread.id}.`);
    return run;
  }
  if (point.type === "checkpoint") {
    const checkpoint = record.checkpoints.get(point.checkpointId);
    if (!checkpoint)
      reject(`Rollback target ${point.checkpointId} is unavailable for thread ${record.thread.id}.`);
    return checkpoint.runId ? record.runs.get(checkpoint.runId) : undefined;
  }
  return runs.filter((run) => run.status === "completed").at(-1);
}

export const threadFork: CommandHandler = (ctx, c) => {
  const source = requireThread(ctx, c.sourceThreadId);
  const targetId = str(c, "targetThreadId");
  if (ctx.store.threads.has(targetId)) reject(`Thread ${targetId} already exists.`);
  const run = sourceRun(source, c.sourcePoint as SourcePoint);
  const t = source.thread;
  createThread(ctx, c.commandId, {
    id: targetId,
    projectId: t.projectId,
    title: (c.title as string | undefined) ?? `${t.title} (fork)`,
    modelSelection: t.modelSelection,
    runtimeMode: t.runtimeMode,
    interactionMode: t.interactionMode,
    branch: t.branch,
    worktreePath: t.worktreePath,
    createdBy: c.createdBy as AppThread["createdBy"],
    creationSource: c.creationSource as AppThread["creationSource"],
    lineage: { parentThreadId: t.id, relationshipToParent: "fork", rootThreadId: t.lineage.rootThreadId },
    forkedFrom: run ? { type: "run", threadId: t.id, runId: run.id } : null,
  });
  const target = ctx.store.threads.get(targetId);
  if (!target) return ctx.store.sequence;
  // The fork shows the source timeline up to the fork point as inherited rows.
  const cutoff = run?.ordinal ?? Number.POSITIVE_INFINITY;
  target.inherited = visibleTurnItems(source)
    .filter((row) => {
      const owner = row.item.runId ? source.runs.get(row.item.runId) : undefined;
      return !owner || owner.ordinal <= cutoff;
    })
    .map((row) => ({ ...row, visibility: "inherited" as const }));
  return ctx.store.transact(target, c.commandId, (tx) => {
    tx.item({
      id: `turn-item:fork:${targetId}`,
      threadId: targetId,
      runId: null,
      nodeId: null,
      providerThreadId: null,
      providerTurnId: null,
      nativeItemRef: null,
      parentItemId: null,
      ordinal: tx.nextItemOrdinal(),
      status: "completed",
      title: "Forked",
      startedAt: tx.now,
      completedAt: tx.now,
      updatedAt: tx.now,
      type: "fork",
      source: run
        ? { type: "run", threadId: t.id, runId: run.id }
        : { type: "node", nodeId: `node:thread:${t.id}` },
      targetThreadId: targetId,
    });
  });
};

export const threadMergeBack: CommandHandler = (ctx, c) => {
  const source = requireThread(ctx, c.sourceThreadId);
  const target = requireThread(ctx, c.targetThreadId);
  const run = sourceRun(source, c.sourcePoint as SourcePoint);
  return ctx.store.transact(target, c.commandId, (tx) => {
    tx.contextTransfer({
      id: `context-transfer:${ctx.store.ids.uuid()}`,
      type: "merge_back",
      sourceThreadId: source.thread.id,
      targetThreadId: target.thread.id,
      sourcePoint: { threadId: source.thread.id, ...(run ? { runId: run.id } : {}) },
      basePoint: null,
      sourceProviderInstanceId: source.thread.providerInstanceId,
      targetProviderInstanceId: target.thread.providerInstanceId,
      targetRunId: null,
      status: "pending",
      resolution: null,
      createdBy: c.createdBy,
      error: null,
      createdAt: tx.now,
      updatedAt: tx.now,
      consumedAt: null,
    });
  });
};

function requireParentRun(record: ThreadRecord, runId: string): Run {
  const run = record.runs.get(runId);
  if (!run) reject(`Run ${runId} does not exist on thread ${record.thread.id}.`);
  return run;
}

/** A delegated task is an app-owned subagent with its own child thread running the task. */
export const delegatedTaskRequest: CommandHandler = (ctx, c) => {
  const parent = requireThread(ctx, c.parentThreadId);
  const parentRun = requireParentRun(parent, str(c, "parentRunId"));
  const modelSelection = c.modelSelection as ModelSelection;
  const childId = ctx.store.ids.uuid();
  const taskId = `node:delegated-task:${childId}`;
  createThread(ctx, c.commandId, {
    id: childId,
    projectId: parent.thread.projectId,
    title: (c.title as string | undefined) ?? str(c, "task").slice(0, 60),
    modelSelection,
    runtimeMode: str(c, "runtimeMode"),
    interactionMode: str(c, "interactionMode"),
    branch: parent.thread.branch,
    worktreePath: parent.thread.worktreePath,
    createdBy: c.createdBy as AppThread["createdBy"],
    creationSource: c.creationSource as AppThread["creationSource"],
    lineage: {
      parentThreadId: parent.thread.id,
      relationshipToParent: "subagent",
      rootThreadId: parent.thread.lineage.rootThreadId,
    },
  });
  const child = ctx.store.threads.get(childId);
  if (child) {
    dispatchMessage(ctx, child, c.commandId, {
      messageId: ctx.store.ids.uuid(),
      text: str(c, "task"),
      attachments: [],
      createdBy: "agent",
      creationSource: "server",
      dispatchMode: { type: "start_immediately" },
    });
  }
  return ctx.store.transact(parent, c.commandId, (tx) => {
    tx.subagent({
      id: taskId,
      threadId: parent.thread.id,
      runId: parentRun.id,
      parentNodeId: str(c, "parentNodeId"),
      origin: "app_owned",
      createdBy: c.createdBy as AppThread["createdBy"],
      driver: modelSelection.instanceId,
      providerInstanceId: modelSelection.instanceId,
      providerThreadId: null,
      childThreadId: childId,
      nativeTaskRef: null,
      prompt: str(c, "task"),
      title: (c.title as string | undefined) ?? null,
      model: modelSelection.model,
      completionWake: (c.completionWake as "always" | "settled_only" | undefined) ?? "settled_only",
      completionDelivery: { state: "pending", observedByRunId: null },
      status: "running",
      result: null,
      startedAt: tx.now,
      completedAt: null,
      updatedAt: tx.now,
    });
  });
};

function requireTask(ctx: CommandContext, parentThreadId: unknown, taskId: string) {
  const parent = requireThread(ctx, parentThreadId);
  const task = parent.subagents.get(taskId);
  if (!task) reject(`Delegated task ${taskId} does not exist on thread ${parent.thread.id}.`);
  return { parent, task };
}

export const delegatedTaskWakePolicy: CommandHandler = (ctx, c) => {
  const { parent, task } = requireTask(ctx, c.parentThreadId, str(c, "taskId"));
  return ctx.store.transact(parent, c.commandId, (tx) => {
    tx.subagent({
      ...task,
      completionWake: c.completionWake as "always" | "settled_only",
      updatedAt: tx.now,
    });
  });
};

export const delegatedTaskAcknowledge: CommandHandler = (ctx, c) => {
  const { parent, task } = requireTask(ctx, c.parentThreadId, str(c, "taskId"));
  return ctx.store.transact(parent, c.commandId, (tx) => {
    const observedByRunId = (c.observedByRunId as string | null) ?? null;
    tx.subagent({
      ...task,
      completionDelivery: { state: "acknowledged", observedByRunId },
      updatedAt: tx.now,
    });
  });
};

export const delegatedTaskDispose: CommandHandler = (ctx, c) => {
  const { parent, task } = requireTask(ctx, c.parentThreadId, str(c, "taskId"));
  return ctx.store.transact(parent, c.commandId, (tx) => {
    tx.subagent({
      ...task,
      completionDelivery: { state: "disposed", observedByRunId: null },
      updatedAt: tx.now,
    });
  });
};

export const threadCreatedRecord: CommandHandler = (ctx, c) => {
  const parent = requireThread(ctx, c.parentThreadId);
  const parentRun = requireParentRun(parent, str(c, "parentRunId"));
  const target = requireThread(ctx, c.targetThreadId);
  return ctx.store.transact(parent, c.commandId, (tx) => {
    tx.item({
      id: `turn-item:thread-created:${target.thread.id}`,
      threadId: parent.thread.id,
      runId: parentRun.id,
      nodeId: str(c, "parentNodeId"),
      providerThreadId: parentRun.providerThreadId,
      providerTurnId: null,
      nativeItemRef: null,
      parentItemId: null,
      ordinal: tx.nextItemOrdinal(),
      status: "completed",
      title: "Thread created",
      startedAt: tx.now,
      completedAt: tx.now,
      updatedAt: tx.now,
      type: "thread_created",
      targetThreadId: target.thread.id,
      targetRunId: (c.targetRunId as string | null) ?? null,
      targetProviderInstanceId: target.thread.providerInstanceId,
      targetModel: target.thread.modelSelection.model,
    });
  });
};

/**
 * When a delegated task's child thread finishes its run, the parent's subagent record takes the
 * outcome and the reply as its result.
 */
export function reportDelegatedOutcome(ctx: CommandContext, child: ThreadRecord): void {
  const parentId =
    child.thread.lineage.relationshipToParent === "subagent" ? child.thread.lineage.parentThreadId : null;
  const parent = parentId ? ctx.store.liveThread(parentId) : undefined;
  if (!parent) return;
  const task = [...parent.subagents.values()].find(
    (s) => s.childThreadId === child.thread.id && s.status === "running",
  );
  if (!task) return;
  const run = [...child.runs.values()].sort((a, b) => b.ordinal - a.ordinal)[0];
  if (!run || ["preparing", "queued", "starting", "running", "waiting"].includes(run.status)) return;
  const reply = [...child.messages.values()]
    .filter((m) => m.role === "assistant" && m.runId === run.id)
    .at(-1);
  ctx.store.transact(parent, null, (tx) => {
    tx.subagent({
      ...task,
      status: run.status === "completed" ? "completed" : run.status === "failed" ? "failed" : "interrupted",
      result: reply?.text ?? null,
      completedAt: tx.now,
      updatedAt: tx.now,
    });
  });
}
