/**
 * Run lifecycle changes, each staged on a `Tx`. Commands and the engine compose these; ids and
 * event order follow the captures (fixture 37: a message.dispatch commits provider-thread,
 * run, attempt, node, scope, message and turn item, in that order).
 */
import {
  attemptIdFor,
  checkpointIdFor,
  checkpointItemIdFor,
  errorItemIdFor,
  messageItemIdFor,
  planIdFor,
  planItemIdFor,
  providerThreadIdFor,
  providerTurnIdFor,
  requestItemIdFor,
  requestNodeIdFor,
  rootNodeIdFor,
  rootScopeIdFor,
  runIdFor,
  sharedSessionIdFor,
  signalItemIdFor,
} from "./ids.js";
import { activeRun, queuedRuns } from "./projection.js";
import {
  type ApprovalKind,
  DEFAULT_APPROVAL_OPTIONS,
  DEFAULT_PLAN,
  DEFAULT_QUESTIONS,
  type UserInputQuestion,
} from "./scripts.js";
import type { ThreadRecord, Tx } from "./store.js";
import type {
  ConversationMessage,
  ExecutionNode,
  ModelSelection,
  ProviderThread,
  Run,
  RunAttempt,
  RuntimeRequest,
  TurnItem,
} from "./types.js";

export const driverOf = (instanceId: string): string => instanceId;

const PROVIDER_CAPABILITIES = {
  sessions: {
    supportsMultipleProviderThreadsPerSession: true,
    supportsModelSwitchInSession: true,
    supportsProviderSwitchingViaHandoff: true,
    supportsRuntimeModeSwitchInSession: true,
    pendingRequestsSurviveRestart: false,
  },
  threads: {
    canCreateEmptyThread: true,
    canReadThreadSnapshot: true,
    canRollbackThread: true,
    canForkThread: true,
    canForkFromTurn: true,
    canForkFromSubagentThread: false,
    exposesNativeThreadId: true,
  },
  turns: {
    exposesNativeTurnId: true,
    emitsTurnStarted: true,
    emitsTurnCompleted: true,
    supportsInterrupt: true,
    supportsActiveSteering: true,
    supportsSteeringByInterruptRestart: true,
    supportsQueuedMessages: true,
    terminalStatusQuality: "strong",
  },
  streaming: {
    streamsAssistantText: true,
    streamsReasoning: false,
    streamsToolOutput: true,
    streamsPlanText: false,
    emitsMessageCompleted: true,
  },
  tools: {
    exposesToolItemIds: true,
    emitsToolStarted: true,
    emitsToolCompleted: true,
    emitsToolOutput: true,
    supportsMcpTools: true,
    supportsDynamicToolCallbacks: false,
  },
  approvals: {
    supportsCommandApproval: true,
    supportsFileReadApproval: true,
    supportsFileChangeApproval: true,
    supportsApplyPatchApproval: true,
    approvalsHaveNativeRequestIds: true,
    approvalCallbacksAreLiveOnly: true,
    approvalsCanOriginateFromSubagents: false,
  },
  planning: {
    emitsPlanUpdated: true,
    emitsTodoList: true,
    emitsProposedPlan: true,
    supportsStructuredQuestions: true,
    planDeltasHaveItemIds: true,
  },
  subagents: {
    supportsSubagents: false,
    exposesSubagentThreadIds: false,
    emitsSubagentLifecycle: false,
    canWaitForSubagents: false,
    canCloseSubagents: false,
    canForkSubagentThread: false,
  },
  context: {
    acceptsSystemContext: true,
    acceptsDeveloperContext: true,
    acceptsSyntheticUserContext: true,
    canGenerateSummaries: true,
    canConsumeHandoffSummaries: true,
    supportsDeltaHandoff: true,
    supportsFullThreadHandoff: true,
    maxRecommendedHandoffChars: null,
  },
  checkpointing: {
    appCanCheckpointFilesystem: true,
    supportsNestedCheckpointScopes: false,
    providerCanRollbackConversation: true,
    providerRollbackReturnsSnapshot: false,
    providerCanReadConversationSnapshot: true,
  },
  identity: { nativeThreadIds: "strong", nativeTurnIds: "strong", nativeItemIds: "weak", nativeRequestIds: "strong" },
};

export interface UserMessageInput {
  messageId: string;
  text: string;
  attachments: unknown[];
  createdBy: ConversationMessage["createdBy"];
  creationSource: ConversationMessage["creationSource"];
}

function rootNode(tx: Tx, run: Run, status: string, providerTurnId: string | null = null): ExecutionNode {
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

function userItem(tx: Tx, message: ConversationMessage, run: Run, inputIntent: string): TurnItem {
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
  const providerThreadId = providerThreadFor(record, instanceId) ?? providerThreadIdFor(driverOf(instanceId), id);
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
  };
  tx.message(message);
  tx.item(userItem(tx, message, run, queued ? "queued_turn" : "turn_start"));
  return run;
}

function newAttempt(run: Run, ordinal: number, reason: RunAttempt["reason"]): RunAttempt {
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

function ensureRootScope(tx: Tx, run: Run, cwd: string): void {
  const id = rootScopeIdFor(tx.threadId);
  if (tx.record.checkpointScopes.has(id)) return;
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

export function currentAttempt(record: ThreadRecord, run: Run): RunAttempt | undefined {
  return run.activeAttemptId ? record.attempts.get(run.activeAttemptId) : undefined;
}

/** The provider turn begins: session, turn, attempt, node and run become running. */
export function beginProviderTurn(tx: Tx, run: Run): Run {
  const attempt = currentAttempt(tx.record, run);
  if (!attempt) return run;
  const sessionId = sharedSessionIdFor(run.providerInstanceId);
  const previousSession = tx.record.providerSessions.get(sessionId);
  tx.providerSession({
    id: sessionId,
    driver: driverOf(run.providerInstanceId),
    providerInstanceId: run.providerInstanceId,
    status: "running",
    cwd: tx.record.checkpointScopes.get(rootScopeIdFor(tx.threadId))?.cwd ?? "/",
    model: run.modelSelection.model,
    capabilities: PROVIDER_CAPABILITIES,
    createdAt: previousSession?.createdAt ?? tx.now,
    updatedAt: tx.now,
    lastError: null,
  });
  const providerThreadId = run.providerThreadId ?? attempt.providerThreadId;
  const pt = tx.record.providerThreads.get(providerThreadId);
  if (pt) tx.providerThread({ ...pt, status: "active", providerSessionId: sessionId, updatedAt: tx.now });
  const turnId = providerTurnIdFor(attempt.id);
  tx.providerTurn(
    {
      id: turnId,
      providerThreadId,
      nodeId: attempt.rootNodeId,
      runAttemptId: attempt.id,
      nativeTurnRef: null,
      ordinal: attempt.attemptOrdinal,
      status: "running",
      startedAt: tx.now,
      completedAt: null,
    },
    run.id,
  );
  tx.attempt({ ...attempt, status: "running", startedAt: tx.now, providerTurnId: turnId });
  tx.node({ ...rootNode(tx, run, "running", turnId), startedAt: tx.now });
  return tx.run({ ...run, status: "running", startedAt: run.startedAt ?? tx.now });
}

/** Upserts the run's assistant message (whole-row upserts, streaming true then false). */
export function upsertAssistant(tx: Tx, run: Run, messageId: string, text: string, streaming: boolean): void {
  const attempt = currentAttempt(tx.record, run);
  const previous = tx.record.messages.get(messageId);
  const message = tx.message({
    createdBy: "agent",
    creationSource: "provider",
    id: messageId,
    threadId: tx.threadId,
    runId: run.id,
    nodeId: run.rootNodeId,
    role: "assistant",
    text,
    attachments: [],
    streaming,
    createdAt: previous?.createdAt ?? tx.now,
    updatedAt: tx.now,
  });
  const itemId = messageItemIdFor(messageId);
  const previousItem = tx.record.turnItems.get(itemId);
  tx.item({
    id: itemId,
    threadId: tx.threadId,
    runId: run.id,
    nodeId: run.rootNodeId,
    providerThreadId: run.providerThreadId,
    providerTurnId: attempt?.providerTurnId ?? null,
    nativeItemRef: null,
    parentItemId: null,
    ordinal: previousItem?.ordinal ?? tx.nextItemOrdinal(),
    status: streaming ? "running" : "completed",
    title: null,
    startedAt: previousItem?.startedAt ?? tx.now,
    completedAt: streaming ? null : tx.now,
    updatedAt: tx.now,
    type: "assistant_message",
    messageId: message.id,
    text,
    streaming,
  });
}

export interface RequestSpec {
  kind: "approval" | "user_input";
  requestKind?: ApprovalKind;
  prompt?: string;
  questions?: UserInputQuestion[];
  responseMode?: "message";
}

/** A provider asks for an approval or a user_input answer; the run stays `running` (§8). */
export function openRuntimeRequest(tx: Tx, run: Run, spec: RequestSpec): RuntimeRequest {
  const attempt = currentAttempt(tx.record, run);
  const requestId = `runtime-request:${tx.store.ids.uuid()}`;
  const nodeId = requestNodeIdFor(requestId);
  const isQuestion = spec.kind === "user_input";
  const kind = isQuestion ? "user_input" : (spec.requestKind ?? "command");
  const request = tx.runtimeRequest(
    {
      id: requestId,
      nodeId,
      providerTurnId: attempt?.providerTurnId ?? null,
      nativeRequestRef: null,
      kind,
      status: "pending",
      responseCapability:
        spec.responseMode === "message"
          ? { type: "message" }
          : { type: "live", providerSessionId: sharedSessionIdFor(run.providerInstanceId) },
      createdAt: tx.now,
      resolvedAt: null,
    },
    run.id,
  );
  tx.node({
    id: nodeId,
    threadId: tx.threadId,
    runId: run.id,
    parentNodeId: run.rootNodeId,
    rootNodeId: run.rootNodeId ?? nodeId,
    kind: isQuestion ? "user_input_request" : "approval_request",
    status: "waiting",
    countsForRun: false,
    providerThreadId: run.providerThreadId,
    providerTurnId: attempt?.providerTurnId ?? null,
    nativeItemRef: null,
    runtimeRequestId: requestId,
    checkpointScopeId: null,
    startedAt: tx.now,
    completedAt: null,
  });
  const base = {
    id: requestItemIdFor(requestId),
    threadId: tx.threadId,
    runId: run.id,
    nodeId,
    providerThreadId: run.providerThreadId,
    providerTurnId: attempt?.providerTurnId ?? null,
    nativeItemRef: null,
    parentItemId: null,
    ordinal: tx.nextItemOrdinal(),
    status: "waiting",
    startedAt: tx.now,
    completedAt: null,
    updatedAt: tx.now,
  };
  if (isQuestion) {
    tx.item({
      ...base,
      title: "Question",
      type: "user_input_request",
      requestId,
      questions: spec.questions ?? DEFAULT_QUESTIONS,
      ...(spec.responseMode ? { responseMode: spec.responseMode } : {}),
    });
  } else {
    tx.item({
      ...base,
      title: "Approval requested",
      type: "approval_request",
      requestId,
      requestKind: kind,
      prompt: spec.prompt ?? "Run `pnpm test` in the workspace?",
      options: DEFAULT_APPROVAL_OPTIONS,
    });
  }
  return request;
}

/** Closes a runtime request (answered, dismissed or cancelled by an interrupt). */
export function closeRuntimeRequest(
  tx: Tx,
  request: RuntimeRequest,
  outcome: { status: "resolved" | "cancelled"; decision?: string; answers?: Record<string, unknown> },
): void {
  const runId = tx.record.nodes.get(request.nodeId)?.runId ?? null;
  tx.runtimeRequest(
    {
      ...request,
      status: outcome.status,
      resolvedAt: tx.now,
      ...(outcome.decision !== undefined ? { decision: outcome.decision } : {}),
      ...(outcome.answers !== undefined ? { answers: outcome.answers } : {}),
    },
    runId,
  );
  const node = tx.record.nodes.get(request.nodeId);
  const done = outcome.status === "resolved" ? "completed" : "cancelled";
  if (node) tx.node({ ...node, status: done, completedAt: tx.now });
  const item = tx.record.turnItems.get(requestItemIdFor(request.id));
  if (item) tx.item({ ...item, status: done, completedAt: tx.now, updatedAt: tx.now });
}

export function proposePlan(tx: Tx, run: Run, markdown: string | undefined): void {
  const planId = planIdFor(run.id);
  const nodeId = run.rootNodeId ?? rootNodeIdFor(run.id);
  for (const plan of tx.record.plans.values()) {
    if (plan.kind === "proposed_plan" && plan.status === "active") tx.plan({ ...plan, status: "superseded" });
  }
  tx.plan({ id: planId, threadId: tx.threadId, runId: run.id, nodeId, status: "active", kind: "proposed_plan", markdown: markdown ?? DEFAULT_PLAN });
  tx.item({
    id: planItemIdFor(planId),
    threadId: tx.threadId,
    runId: run.id,
    nodeId,
    providerThreadId: run.providerThreadId,
    providerTurnId: currentAttempt(tx.record, run)?.providerTurnId ?? null,
    nativeItemRef: null,
    parentItemId: null,
    ordinal: tx.nextItemOrdinal(),
    status: "completed",
    title: "Proposed plan",
    startedAt: tx.now,
    completedAt: tx.now,
    updatedAt: tx.now,
    type: "proposed_plan",
    planId,
    markdown: markdown ?? DEFAULT_PLAN,
    streaming: false,
  });
}

function finishProviderTurn(tx: Tx, run: Run, status: "completed" | "interrupted" | "failed"): void {
  const attempt = currentAttempt(tx.record, run);
  if (!attempt) return;
  if (attempt.providerTurnId) {
    const turn = tx.record.providerTurns.get(attempt.providerTurnId);
    if (turn && turn.status === "running") tx.providerTurn({ ...turn, status, completedAt: tx.now }, run.id);
  }
  if (attempt.status === "pending" || attempt.status === "running") {
    tx.attempt({ ...attempt, status, completedAt: tx.now });
  }
  const node = run.rootNodeId ? tx.record.nodes.get(run.rootNodeId) : undefined;
  if (node && !node.completedAt) tx.node({ ...node, status, completedAt: tx.now });
  const session = tx.record.providerSessions.get(sharedSessionIdFor(run.providerInstanceId));
  if (session && session.status !== "ready") tx.providerSession({ ...session, status: "ready", updatedAt: tx.now });
}

/** The provider turn ended; the checkpoint capture is still pending (§8 `waiting`). */
export function enterWaiting(tx: Tx, run: Run): Run {
  finishProviderTurn(tx, run, "completed");
  return tx.run({ ...run, status: "waiting" });
}

export function completeWithCheckpoint(tx: Tx, run: Run): Run {
  const record = tx.record;
  const scopeId = rootScopeIdFor(tx.threadId);
  const previous = [...record.checkpoints.values()].at(-1);
  const checkpointId = checkpointIdFor(tx.threadId, run.ordinal);
  const files = [{ path: "src/index.ts", kind: "modified", additions: 3 + run.ordinal, deletions: 1 }];
  const nodeId = run.rootNodeId ?? rootNodeIdFor(run.id);
  tx.checkpoint({
    id: checkpointId,
    threadId: tx.threadId,
    scopeId,
    runId: run.id,
    nodeId,
    parentCheckpointId: previous?.id ?? null,
    ordinalWithinScope: record.checkpoints.size,
    appRunOrdinal: run.ordinal,
    ref: `refs/t3/checkpoints/${tx.threadId}/${run.ordinal}`,
    status: "ready",
    files,
    capturedAt: tx.now,
  });
  tx.item({
    id: checkpointItemIdFor(checkpointId),
    threadId: tx.threadId,
    runId: run.id,
    nodeId,
    providerThreadId: run.providerThreadId,
    providerTurnId: currentAttempt(record, run)?.providerTurnId ?? null,
    nativeItemRef: null,
    parentItemId: null,
    ordinal: tx.nextItemOrdinal(),
    status: "completed",
    title: "Checkpoint",
    startedAt: tx.now,
    completedAt: tx.now,
    updatedAt: tx.now,
    type: "checkpoint",
    checkpointId,
    scopeId,
    files,
  });
  const pt = run.providerThreadId ? record.providerThreads.get(run.providerThreadId) : undefined;
  if (pt && pt.status !== "idle") tx.providerThread({ ...pt, status: "idle", updatedAt: tx.now });
  return tx.run({ ...run, status: "completed", completedAt: tx.now, checkpointId });
}

export function failRun(tx: Tx, run: Run, message: string, failureClass: string): Run {
  const attempt = currentAttempt(tx.record, run);
  tx.item({
    id: errorItemIdFor(run.id, attempt?.attemptOrdinal ?? 1),
    threadId: tx.threadId,
    runId: run.id,
    nodeId: run.rootNodeId,
    providerThreadId: run.providerThreadId,
    providerTurnId: attempt?.providerTurnId ?? null,
    nativeItemRef: null,
    parentItemId: null,
    ordinal: tx.nextItemOrdinal(),
    status: "failed",
    title: "Provider error",
    startedAt: tx.now,
    completedAt: tx.now,
    updatedAt: tx.now,
    type: "error",
    failure: { class: failureClass, message, code: null, retryable: false },
  });
  cancelOpenWork(tx, run, "failed");
  finishProviderTurn(tx, run, "failed");
  return tx.run({ ...run, status: "failed", completedAt: tx.now });
}

/** Pending requests are cancelled and a streaming reply is frozen when a run stops early. */
function cancelOpenWork(tx: Tx, run: Run, itemStatus: string): void {
  for (const request of tx.record.runtimeRequests.values()) {
    const owner = tx.record.nodes.get(request.nodeId)?.runId;
    if (request.status === "pending" && owner === run.id) closeRuntimeRequest(tx, request, { status: "cancelled" });
  }
  for (const message of tx.record.messages.values()) {
    if (message.runId !== run.id || !message.streaming) continue;
    tx.message({ ...message, streaming: false, updatedAt: tx.now });
    const item = tx.record.turnItems.get(messageItemIdFor(message.id));
    if (item) tx.item({ ...item, streaming: false, status: itemStatus, completedAt: tx.now, updatedAt: tx.now });
  }
}

/** `run.interrupt`: request and result signal items, then attempt, node and run interrupted. */
export function interruptRun(tx: Tx, run: Run, reason: string | undefined): Run {
  const attempt = currentAttempt(tx.record, run);
  const started = attempt?.status === "running";
  const requestItemId = signalItemIdFor(run.id, "interrupt-request");
  const base = {
    threadId: tx.threadId,
    runId: run.id,
    nodeId: run.rootNodeId,
    providerThreadId: run.providerThreadId,
    providerTurnId: attempt?.providerTurnId ?? null,
    nativeItemRef: null,
    startedAt: tx.now,
    completedAt: tx.now,
    updatedAt: tx.now,
  };
  tx.item({
    ...base,
    id: requestItemId,
    parentItemId: null,
    ordinal: tx.nextItemOrdinal(),
    status: "completed",
    title: "Interrupt requested",
    type: "run_interrupt_request",
    message: reason ?? "Interrupted by the user",
  });
  tx.item({
    ...base,
    id: signalItemIdFor(run.id, "interrupt-result"),
    parentItemId: requestItemId,
    ordinal: tx.nextItemOrdinal(),
    status: "interrupted",
    title: "Interrupted",
    type: "run_interrupt_result",
    message: started ? "Run interrupted" : "Run interrupted before provider start",
  });
  cancelOpenWork(tx, run, "interrupted");
  finishProviderTurn(tx, run, "interrupted");
  return tx.run({ ...run, status: "interrupted", completedAt: tx.now });
}

/** `restart_active`: the current attempt is superseded and a new attempt starts the same run. */
export function restartAttempt(tx: Tx, run: Run): Run {
  const attempt = currentAttempt(tx.record, run);
  cancelOpenWork(tx, run, "interrupted");
  if (attempt) {
    if (attempt.providerTurnId) {
      const turn = tx.record.providerTurns.get(attempt.providerTurnId);
      if (turn && turn.status === "running") tx.providerTurn({ ...turn, status: "interrupted", completedAt: tx.now }, run.id);
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
