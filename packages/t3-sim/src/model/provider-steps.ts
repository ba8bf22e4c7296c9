/**
 * What a simulated provider does inside a run, one staged change per step: start the turn,
 * upsert the reply, ask for approval or input, propose a plan, finish, fail or stop.
 */
import { PROVIDER_CAPABILITIES } from "./capabilities.js";
import {
  checkpointIdFor,
  checkpointItemIdFor,
  errorItemIdFor,
  messageItemIdFor,
  planIdFor,
  planItemIdFor,
  providerTurnIdFor,
  requestItemIdFor,
  requestNodeIdFor,
  rootNodeIdFor,
  rootScopeIdFor,
  sharedSessionIdFor,
  signalItemIdFor,
} from "./ids.js";
import { attemptItemPlace, currentAttempt, driverOf, rootNode } from "./run-records.js";
import {
  type ApprovalKind,
  DEFAULT_APPROVAL_OPTIONS,
  DEFAULT_PLAN,
  DEFAULT_QUESTIONS,
  type UserInputQuestion,
} from "./scripts.js";
import type { ThreadRecord, Tx } from "./store.js";
import { diffTrees } from "./tree-diff.js";
import type { Run, RuntimeRequest } from "./types.js";
import { applyEdits, type FileTree, type Repository, type SimEdit, snapshot } from "./workspace-files.js";

/** The repository of the thread's folder (its worktree, else its project's root). */
export function repositoryOf(tx: Tx): Repository {
  const thread = tx.record.thread;
  const cwd = thread.worktreePath ?? tx.store.projects.get(thread.projectId)?.workspaceRoot ?? "/";
  return tx.store.workspaces.open(cwd, thread.worktreePath ? (thread.branch ?? "main") : "main");
}

/** The files at the thread's newest checkpoint, if it has one. */
function latestTree(record: ThreadRecord): FileTree | undefined {
  let best = -1;
  for (const ordinal of record.checkpointTrees.keys()) if (ordinal > best) best = ordinal;
  return best < 0 ? undefined : record.checkpointTrees.get(best);
}

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
    ...attemptItemPlace(tx, run, attempt),
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

const DEFAULT_PROMPTS: Record<string, string> = {
  command: "Run `pnpm test` in the workspace?",
  "file-change": "Apply the edit to src/index.ts?",
  "file-read": "Read .env.local outside the workspace?",
  permission: "Allow network access for this session?",
  "mcp-elicitation": "The docs-search server asks which API region to use.",
};

/** A provider asks for an approval or a user_input answer; the run stays `running`. */
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
    ...attemptItemPlace(tx, run, attempt, nodeId),
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
      prompt: spec.prompt ?? DEFAULT_PROMPTS[kind] ?? "Allow this action?",
      ...(kind === "mcp-elicitation" ? { appName: "docs-search" } : {}),
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
  tx.plan({
    id: planId,
    threadId: tx.threadId,
    runId: run.id,
    nodeId,
    status: "active",
    kind: "proposed_plan",
    markdown: markdown ?? DEFAULT_PLAN,
  });
  tx.item({
    id: planItemIdFor(planId),
    ...attemptItemPlace(tx, run, currentAttempt(tx.record, run), nodeId),
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
  if (session && session.status !== "ready")
    tx.providerSession({ ...session, status: "ready", updatedAt: tx.now });
}

/** The provider turn ended; the checkpoint capture is still pending (the run is `waiting`). */
export function enterWaiting(tx: Tx, run: Run): Run {
  finishProviderTurn(tx, run, "completed");
  return tx.run({ ...run, status: "waiting" });
}

/**
 * The run's edits land in its folder's files, and the checkpoint keeps a copy of them; its file
 * counts are the diff from the checkpoint before it, as T3 computes them (fixture 120).
 */
export function completeWithCheckpoint(tx: Tx, run: Run, edits: readonly SimEdit[] = []): Run {
  const record = tx.record;
  const scopeId = rootScopeIdFor(tx.threadId);
  const previous = [...record.checkpoints.values()].at(-1);
  const checkpointId = checkpointIdFor(tx.threadId, run.ordinal);
  const repository = repositoryOf(tx);
  const before = latestTree(record) ?? snapshot(repository);
  if (record.checkpointTrees.size === 0) record.checkpointTrees.set(0, before);
  applyEdits(repository, edits);
  const after = snapshot(repository);
  record.checkpointTrees.set(run.ordinal, after);
  // Listed by path as a person reads it, not git's byte order (fixture 120: notes.txt before README.md).
  const files = diffTrees(before, after).files.sort((a, b) => a.path.localeCompare(b.path));
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
    ...attemptItemPlace(tx, run, currentAttempt(record, run), nodeId),
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

export function failRun(
  tx: Tx,
  run: Run,
  message: string,
  failureClass: string,
  code: string | null = null,
): Run {
  const attempt = currentAttempt(tx.record, run);
  tx.item({
    id: errorItemIdFor(run.id, attempt?.attemptOrdinal ?? 1),
    ...attemptItemPlace(tx, run, attempt),
    parentItemId: null,
    ordinal: tx.nextItemOrdinal(),
    status: "failed",
    title: "Provider error",
    startedAt: tx.now,
    completedAt: tx.now,
    updatedAt: tx.now,
    type: "error",
    failure: { class: failureClass, message, code, retryable: false },
  });
  cancelOpenWork(tx, run, "failed");
  finishProviderTurn(tx, run, "failed");
  return tx.run({ ...run, status: "failed", completedAt: tx.now });
}

/** Pending requests are cancelled and a streaming reply is frozen when a run stops early. */
export function cancelOpenWork(tx: Tx, run: Run, itemStatus: string): void {
  for (const request of tx.record.runtimeRequests.values()) {
    const owner = tx.record.nodes.get(request.nodeId)?.runId;
    if (request.status === "pending" && owner === run.id)
      closeRuntimeRequest(tx, request, { status: "cancelled" });
  }
  for (const message of tx.record.messages.values()) {
    if (message.runId !== run.id || !message.streaming) continue;
    tx.message({ ...message, streaming: false, updatedAt: tx.now });
    const item = tx.record.turnItems.get(messageItemIdFor(message.id));
    if (item)
      tx.item({ ...item, streaming: false, status: itemStatus, completedAt: tx.now, updatedAt: tx.now });
  }
}

/** `run.interrupt`: request and result signal items, then attempt, node and run interrupted. */
export function interruptRun(tx: Tx, run: Run, reason: string | undefined): Run {
  const attempt = currentAttempt(tx.record, run);
  const started = attempt?.status === "running";
  const requestItemId = signalItemIdFor(run.id, "interrupt-request");
  const base = {
    ...attemptItemPlace(tx, run, attempt),
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
