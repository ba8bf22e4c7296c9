/** Builders for the records every run step touches (root node, attempt, user message item). */
import { attemptIdFor, messageItemIdFor, rootNodeIdFor, rootScopeIdFor } from "./ids.js";
import type { ThreadRecord, Tx } from "./store.js";
import type { ConversationMessage, ExecutionNode, Run, RunAttempt, TurnItem } from "./types.js";

export const driverOf = (instanceId: string): string => instanceId;

export interface UserMessageInput {
  messageId: string;
  text: string;
  attachments: unknown[];
  createdBy: ConversationMessage["createdBy"];
  creationSource: ConversationMessage["creationSource"];
  /** A delegated task's completion delivered to its parent (message.dispatch field). */
  delegatedCompletion?: ConversationMessage["delegatedCompletion"];
}

/**
 * Where a turn item of a run sits: thread, run, node and the current attempt's provider turn. An
 * item written before any attempt passes none, and no node.
 */
export function attemptItemPlace(tx: Tx, run: Run, attempt: RunAttempt | undefined, nodeId = run.rootNodeId) {
  return {
    threadId: tx.threadId,
    runId: run.id,
    nodeId,
    providerThreadId: run.providerThreadId,
    providerTurnId: attempt?.providerTurnId ?? null,
    nativeItemRef: null,
  };
}

export function rootNode(
  tx: Tx,
  run: Run,
  status: string,
  providerTurnId: string | null = null,
): ExecutionNode {
  const id = rootNodeIdFor(run.id);
  const previous = tx.record.nodes.get(id);
  return {
    id,
    threadId: tx.threadId,
    runId: run.id,
    parentNodeId: null,
    rootNodeId: id,
    kind: "root_turn",
    status,
    countsForRun: true,
    providerThreadId: run.providerThreadId,
    providerTurnId: providerTurnId ?? previous?.providerTurnId ?? null,
    nativeItemRef: null,
    runtimeRequestId: null,
    checkpointScopeId: rootScopeIdFor(tx.threadId),
    startedAt: previous?.startedAt ?? null,
    completedAt: null,
  };
}

export function userItem(tx: Tx, message: ConversationMessage, run: Run, inputIntent: string): TurnItem {
  const existing = tx.record.turnItems.get(messageItemIdFor(message.id));
  return {
    id: messageItemIdFor(message.id),
    threadId: tx.threadId,
    runId: message.runId,
    nodeId: message.nodeId,
    providerThreadId: run.providerThreadId,
    providerTurnId: null,
    nativeItemRef: null,
    parentItemId: null,
    ordinal: existing?.ordinal ?? tx.nextItemOrdinal(),
    status: "completed",
    title: null,
    startedAt: message.createdAt,
    completedAt: message.createdAt,
    updatedAt: tx.now,
    createdBy: message.createdBy,
    creationSource: message.creationSource,
    type: "user_message",
    messageId: message.id,
    inputIntent,
    text: message.text,
    attachments: message.attachments,
  };
}

/** The provider thread a thread's runs use (one per thread and instance, made with the first run). */
export function newAttempt(run: Run, ordinal: number, reason: RunAttempt["reason"]): RunAttempt {
  return {
    id: attemptIdFor(run.id, ordinal),
    runId: run.id,
    attemptOrdinal: ordinal,
    rootNodeId: rootNodeIdFor(run.id),
    providerInstanceId: run.providerInstanceId,
    providerThreadId: run.providerThreadId ?? "",
    providerTurnId: null,
    reason,
    status: "pending",
    startedAt: null,
    completedAt: null,
  };
}

export function currentAttempt(record: ThreadRecord, run: Run): RunAttempt | undefined {
  return run.activeAttemptId ? record.attempts.get(run.activeAttemptId) : undefined;
}

/** The provider turn begins: session, turn, attempt, node and run become running. */
