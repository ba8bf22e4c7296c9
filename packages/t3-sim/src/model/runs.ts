/**
 * Run lifecycle around the provider: creating a run for a user message, queueing, promotion of a
 * queued or prepared run, restarts and steering. Ids and event order follow the captures
 * (fixture 37: a message.dispatch commits provider-thread, run, attempt, node, scope, message and
 * turn item, in that order).
 */
import {
  attemptIdFor,
  providerThreadIdFor,
  rootNodeIdFor,
  rootScopeIdFor,
  runIdFor,
  sharedSessionIdFor,
} from "./ids.js";
import { activeRun, queuedRuns } from "./projection.js";
import { cancelOpenWork } from "./provider-steps.js";
import {
  currentAttempt,
  driverOf,
  newAttempt,
  rootNode,
  type UserMessageInput,
  userItem,
} from "./run-records.js";
import type { ThreadRecord, Tx } from "./store.js";
import type { ConversationMessage, ModelSelection, ProviderThread, Run } from "./types.js";

function ensureProviderThread(tx: Tx, run: Run): ProviderThread {
  const existing = run.providerThreadId ? tx.record.providerThreads.get(run.providerThreadId) : undefined;
  const next: ProviderThread = existing
    ? { ...existing, lastRunOrdinal: run.ordinal, updatedAt: tx.now }
    : {
        id: run.providerThreadId ?? providerThreadIdFor(driverOf(run.providerInstanceId), run.id),
        driver: driverOf(run.providerInstanceId),
        providerInstanceId: run.providerInstanceId,
        providerSessionId: sharedSessionIdFor(run.providerInstanceId),
        appThreadId: tx.threadId,
        ownerNodeId: null,
        nativeThreadRef: null,
        nativeConversationHeadRef: null,
        status: "not_loaded",
        firstRunOrdinal: run.ordinal,
        lastRunOrdinal: run.ordinal,
        handoffIds: [],
        forkedFrom: null,
        pendingBackgroundTasks: [],
        createdAt: tx.now,
        updatedAt: tx.now,
      };
  return tx.providerThread(next);
}

function providerThreadFor(record: ThreadRecord, instanceId: string): string | undefined {
  for (const pt of record.providerThreads.values()) if (pt.providerInstanceId === instanceId) return pt.id;
  return undefined;
}

export interface NewRunOptions {
  message: UserMessageInput;
  modelSelection: ModelSelection;
  /** `queued` waits behind the active run; `preparing` waits for prepared-run.release. */
  initialStatus: "starting" | "queued" | "preparing";
  cwd: string;
}

/** Creates a run for a new user message (message.dispatch / launchThread initialMessage). */
export function createRun(tx: Tx, options: NewRunOptions): Run {
  const record = tx.record;
  const ordinal = record.runs.size + 1;
  const id = runIdFor(tx.threadId, ordinal);
  const instanceId = options.modelSelection.instanceId;
  const providerThreadId =
    providerThreadFor(record, instanceId) ?? providerThreadIdFor(driverOf(instanceId), id);
  const queued = options.initialStatus === "queued";
  let run: Run = {
    id,
    threadId: tx.threadId,
    ordinal,
    providerInstanceId: instanceId,
    modelSelection: options.modelSelection,
    providerThreadId,
    userMessageId: options.message.messageId,
    rootNodeId: null,
    activeAttemptId: null,
    status: options.initialStatus,
    queuePosition: queued ? queuedRuns(record).length + 1 : null,
    requestedAt: tx.now,
    startedAt: null,
    completedAt: null,
    checkpointId: null,
    contextHandoffId: null,
    ...(queued && record.queueHeld ? { queueHeld: true } : {}),
  };
  if (options.initialStatus === "starting") {
    ensureProviderThread(tx, run);
    if (tx.record.thread.activeProviderThreadId !== providerThreadId) {
      tx.record.thread = { ...tx.record.thread, activeProviderThreadId: providerThreadId };
    }
    run = { ...run, rootNodeId: rootNodeIdFor(id), activeAttemptId: attemptIdFor(id, 1) };
    tx.run(run);
    tx.attempt(newAttempt(run, 1, "initial"));
    tx.node(rootNode(tx, run, "pending"));
    ensureRootScope(tx, run, options.cwd);
  } else {
    tx.run(run);
  }
  const message: ConversationMessage = {
    createdBy: options.message.createdBy,
    creationSource: options.message.creationSource,
    id: options.message.messageId,
    threadId: tx.threadId,
    runId: id,
    nodeId: run.rootNodeId,
    role: "user",
    text: options.message.text,
    attachments: options.message.attachments,
    streaming: false,
    createdAt: tx.now,
    updatedAt: tx.now,
    ...(options.message.delegatedCompletion
      ? { delegatedCompletion: options.message.delegatedCompletion }
      : {}),
  };
  tx.message(message);
  tx.item(userItem(tx, message, run, queued ? "queued_turn" : "turn_start"));
  return run;
}

function ensureRootScope(tx: Tx, run: Run, cwd: string): void {
  const id = rootScopeIdFor(tx.threadId);
  const existing = tx.record.checkpointScopes.get(id);
  if (existing) {
    // 0.0.31 moves the root scope to the newest run (fixture 120: `runId` names run 2), which is
    // why its diffs from before the first run fail once a second run starts (133, 134).
    tx.record.checkpointScopes.set(id, { ...existing, runId: run.id, nodeId: rootNodeIdFor(run.id) });
    return;
  }
  tx.scope({
    id,
    threadId: tx.threadId,
    runId: run.id,
    nodeId: rootNodeIdFor(run.id),
    parentScopeId: null,
    providerThreadId: run.providerThreadId,
    kind: "root_run",
    ordinalWithinParent: 0,
    advancesAppRunCount: true,
    cwd,
    createdAt: tx.now,
  });
}

/** A queued or prepared run takes the provider: it keeps its id and becomes `starting`. */
export function promoteToStarting(tx: Tx, run: Run, cwd: string): Run {
  const { queueHeld: _held, ...rest } = run;
  ensureProviderThread(tx, run);
  const started: Run = {
    ...rest,
    status: "starting",
    queuePosition: null,
    rootNodeId: rootNodeIdFor(run.id),
    activeAttemptId: attemptIdFor(run.id, 1),
  };
  tx.run(started);
  tx.attempt(newAttempt(started, 1, "initial"));
  tx.node(rootNode(tx, started, "pending"));
  ensureRootScope(tx, started, cwd);
  const message = tx.record.messages.get(run.userMessageId);
  if (message) {
    const moved = tx.message({ ...message, nodeId: started.rootNodeId, updatedAt: tx.now });
    tx.item(userItem(tx, moved, started, "queued_turn"));
  }
  renumberQueue(tx);
  return started;
}

export function renumberQueue(tx: Tx): void {
  queuedRuns(tx.record).forEach((run, index) => {
    if (run.queuePosition !== index + 1) tx.run({ ...run, queuePosition: index + 1 });
  });
}

export function setQueueHeld(tx: Tx, held: boolean): void {
  tx.record.queueHeld = held;
  for (const run of queuedRuns(tx.record)) {
    const { queueHeld: _held, ...rest } = run;
    tx.run(held ? { ...rest, queueHeld: true } : rest);
  }
}

export function restartAttempt(tx: Tx, run: Run): Run {
  const attempt = currentAttempt(tx.record, run);
  cancelOpenWork(tx, run, "interrupted");
  if (attempt) {
    if (attempt.providerTurnId) {
      const turn = tx.record.providerTurns.get(attempt.providerTurnId);
      if (turn && turn.status === "running")
        tx.providerTurn({ ...turn, status: "interrupted", completedAt: tx.now }, run.id);
    }
    tx.attempt({ ...attempt, status: "superseded", completedAt: tx.now });
  }
  const ordinal = (attempt?.attemptOrdinal ?? 0) + 1;
  const next = tx.run({ ...run, status: "starting", activeAttemptId: attemptIdFor(run.id, ordinal) });
  tx.attempt(newAttempt(next, ordinal, "steering_restart"));
  tx.node({ ...rootNode(tx, next, "pending"), providerTurnId: null });
  return next;
}

/** Adds a user message to a running run (steer), or moves a queued message into it. */
export function addSteerMessage(tx: Tx, target: Run, message: UserMessageInput, inputIntent: string): void {
  const stored = tx.message({
    createdBy: message.createdBy,
    creationSource: message.creationSource,
    id: message.messageId,
    threadId: tx.threadId,
    runId: target.id,
    nodeId: target.rootNodeId,
    role: "user",
    text: message.text,
    attachments: message.attachments,
    streaming: false,
    createdAt: tx.record.messages.get(message.messageId)?.createdAt ?? tx.now,
    updatedAt: tx.now,
  });
  tx.item(userItem(tx, stored, target, inputIntent));
}

export function isBusy(record: ThreadRecord): boolean {
  return activeRun(record) !== undefined || queuedRuns(record).length > 0;
}
