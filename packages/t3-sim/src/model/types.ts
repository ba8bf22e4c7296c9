/**
 * Wire shapes of T3 Code's Orchestrator V2 objects, as the simulator stores them.
 * Field names and order follow the real captures (fixtures/t3-0.0.31) first and
 * the V2 contract second. Stored objects are treated as immutable: every change replaces the
 * object, so an event payload can share the object it was built from.
 */

export type Iso = string;

export interface ModelSelection {
  instanceId: string;
  model: string;
  options?: { id: string; value: string | boolean }[];
}

export type RunStatus =
  | "preparing"
  | "queued"
  | "starting"
  | "running"
  | "waiting"
  | "completed"
  | "interrupted"
  | "failed"
  | "cancelled"
  | "rolled_back";

export const BLOCKING_RUN_STATUSES: readonly RunStatus[] = ["preparing", "starting", "running", "waiting"];
export const TERMINAL_RUN_STATUSES: readonly RunStatus[] = [
  "completed",
  "interrupted",
  "failed",
  "cancelled",
  "rolled_back",
];

export interface Lineage {
  parentThreadId: string | null;
  relationshipToParent: "fork" | "subagent" | null;
  rootThreadId: string;
}

export type ForkedFrom =
  | { type: "run"; threadId: string; runId: string }
  | { type: "node"; nodeId: string }
  | { type: "provider_thread"; providerThreadId: string; providerTurnId?: string }
  | null;

export interface ThreadPullRequestLink {
  host: string;
  repository: string;
  number: number;
  url: string;
  source: "manual" | "created" | "agent" | "stack" | "stack-dismissed";
  linkedAt: Iso;
  /** Set by the server's `thread.pull-request-link.sync`; null until the first refresh. */
  snapshot: PullRequestSnapshot | null;
  stack: unknown;
  /** Newer servers: "Watch for changes" on this pull request (`thread.pull-request.watch`). */
  watch?: PullRequestWatch | null;
}

/** What a refresh of one linked pull request reports (`thread.pull-request-link.sync`). */
export interface PullRequestSnapshot {
  state: string;
  title: string;
  headBranch: string;
  baseBranch: string;
  isDraft: boolean;
  updatedAt: Iso;
  syncedAt: Iso;
}

/** A pull-request watch; field names as upstream's newer contract lists them. */
export interface PullRequestWatch {
  startedAt: Iso;
  headSha: string | null;
  failedChecks: string[];
  passed: boolean;
  passedChecks: string[];
  remarksThrough: Iso | null;
  remarkIds: string[];
  conflicting: boolean;
  wakes: number;
  paused?: boolean;
}

/** Background work restart recovery cancelled (`run.background-work-cancelled`). */
export interface RestartCancelledBackgroundWork {
  kind: "subagent" | "shell" | "monitor" | "task";
  label: string;
  id?: string;
}

export interface LinkedPullRequest {
  projectId: string;
  repository: string;
  number: number;
  url: string;
}

/** `OrchestrationV2AppThread`: the thread inside projections and `thread.*` event payloads. */
export interface AppThread {
  createdBy: "user" | "agent" | "system";
  creationSource: "web" | "mobile" | "mcp" | "provider" | "server";
  id: string;
  projectId: string;
  title: string;
  providerInstanceId: string;
  modelSelection: ModelSelection;
  runtimeMode: string;
  interactionMode: string;
  branch: string | null;
  worktreePath: string | null;
  linkedPullRequest?: LinkedPullRequest | null;
  activeProviderThreadId: string | null;
  lineage: Lineage;
  forkedFrom: ForkedFrom;
  createdAt: Iso;
  updatedAt: Iso;
  archivedAt: Iso | null;
  settledOverride: "settled" | "active" | null;
  settledAt: Iso | null;
  /** Present only once a thread was unsettled (the 0.0.31 capture never shows it). */
  unsettledAt?: Iso | null;
  snoozedUntil: Iso | null;
  snoozedAt: Iso | null;
  /** The 0.0.31 projection omits pinning; the sim adds these only while set (see fidelity doc). */
  pinnedAt?: Iso | null;
  pinOrderKey?: string | null;
  /**
   * Set by the newer `thread.active.reorder` / `thread.auto-settle.set` commands; names as in
   * upstream's newer contract; present only once set.
   */
  activeOrderKey?: string | null;
  autoSettleDisabledAt?: Iso | null;
  /** Newer pull-request links keyed {host, repository, number} (threadPullRequest.ts). */
  pullRequests?: ThreadPullRequestLink[];
  /** Newer servers: the pull request found for the thread's branch (`thread.pull-request.sync`). */
  branchPullRequest?: LinkedPullRequest | null;
  /** Newer servers: the latest accepted rollback, and its failure after every retry. */
  rollbackRequestId?: string;
  rollbackFailure?: { requestId: string; message: string } | null;
  lastVisitedAt: Iso | null;
  /** Absent on `thread.created` payloads and fresh launch projections (fixtures 56, 79). */
  titleRegeneration?: { requestId: string; startedAt: Iso } | null;
  deletedAt: Iso | null;
}

export interface Run {
  id: string;
  threadId: string;
  ordinal: number;
  providerInstanceId: string;
  modelSelection: ModelSelection;
  providerThreadId: string | null;
  userMessageId: string;
  rootNodeId: string | null;
  activeAttemptId: string | null;
  status: RunStatus;
  queuePosition: number | null;
  requestedAt: Iso;
  startedAt: Iso | null;
  completedAt: Iso | null;
  checkpointId: string | null;
  contextHandoffId: string | null;
  /** Newer servers (D): set on queued runs while `run.interrupt {holdQueue:true}` holds the queue. */
  queueHeld?: boolean;
  /** Newer servers: how this run's workspace is prepared; `prepared-run.retry` repeats it. */
  workspacePreparation?: Record<string, unknown>;
  /** Newer servers: background work restart recovery cancelled, told to the next provider turn. */
  restartCancelledBackgroundWork?: RestartCancelledBackgroundWork[];
}

export interface RunAttempt {
  id: string;
  runId: string;
  attemptOrdinal: number;
  rootNodeId: string;
  providerInstanceId: string;
  providerThreadId: string;
  providerTurnId: string | null;
  reason: "initial" | "steering_restart" | "retry" | "provider_recovery";
  status: "pending" | "running" | "completed" | "interrupted" | "failed" | "cancelled" | "superseded";
  startedAt: Iso | null;
  completedAt: Iso | null;
}

export interface ExecutionNode {
  id: string;
  threadId: string;
  runId: string | null;
  parentNodeId: string | null;
  rootNodeId: string;
  kind: string;
  status: string;
  countsForRun: boolean;
  providerThreadId: string | null;
  providerTurnId: string | null;
  nativeItemRef: unknown;
  runtimeRequestId: string | null;
  checkpointScopeId: string | null;
  startedAt: Iso | null;
  completedAt: Iso | null;
}

export interface ProviderThread {
  id: string;
  driver: string;
  providerInstanceId: string;
  providerSessionId: string | null;
  appThreadId: string | null;
  ownerNodeId: string | null;
  nativeThreadRef: unknown;
  nativeConversationHeadRef: unknown;
  status: "not_loaded" | "idle" | "active" | "archived" | "closed" | "error";
  firstRunOrdinal: number | null;
  lastRunOrdinal: number | null;
  handoffIds: string[];
  forkedFrom: unknown;
  pendingBackgroundTasks: { taskId: string; description?: string; taskType?: string }[];
  createdAt: Iso;
  updatedAt: Iso;
}

export interface ProviderSession {
  id: string;
  driver: string;
  providerInstanceId: string;
  status: "starting" | "ready" | "running" | "waiting" | "stopped" | "error";
  cwd: string;
  model: string | null;
  capabilities: Record<string, unknown>;
  createdAt: Iso;
  updatedAt: Iso;
  lastError: string | null;
}

export interface ProviderTurn {
  id: string;
  providerThreadId: string;
  nodeId: string;
  runAttemptId: string | null;
  nativeTurnRef: unknown;
  ordinal: number;
  status: "pending" | "running" | "completed" | "interrupted" | "failed" | "cancelled";
  startedAt: Iso | null;
  completedAt: Iso | null;
}

export type RuntimeRequestKind =
  | "command"
  | "file-read"
  | "file-change"
  | "mcp-elicitation"
  | "permission"
  | "dynamic_tool_call"
  | "user_input"
  | "auth_refresh";

export interface RuntimeRequest {
  id: string;
  nodeId: string;
  providerTurnId: string | null;
  nativeRequestRef: unknown;
  kind: RuntimeRequestKind;
  status: "pending" | "resolved" | "expired" | "cancelled";
  responseCapability:
    | { type: "live"; providerSessionId: string }
    | { type: "message" }
    | { type: "not_resumable"; reason: string };
  createdAt: Iso;
  resolvedAt: Iso | null;
  decision?: string;
  answers?: Record<string, unknown>;
}

export interface ConversationMessage {
  createdBy: "user" | "agent" | "system";
  creationSource: "web" | "mobile" | "mcp" | "provider" | "server";
  id: string;
  threadId: string;
  runId: string | null;
  nodeId: string | null;
  role: "user" | "assistant" | "system";
  text: string;
  attachments: unknown[];
  streaming: boolean;
  createdAt: Iso;
  updatedAt: Iso;
  /** Present only on a message that delivers delegated tasks' completions. */
  delegatedCompletion?: { parentRunId: string; generation: number; taskIds: string[] };
}

/** Common turn item fields; per-type fields are carried as extra keys. */
export interface TurnItem {
  id: string;
  threadId: string;
  runId: string | null;
  nodeId: string | null;
  providerThreadId: string | null;
  providerTurnId: string | null;
  nativeItemRef: unknown;
  parentItemId: string | null;
  ordinal: number;
  status: string;
  title: string | null;
  startedAt: Iso | null;
  completedAt: Iso | null;
  updatedAt: Iso;
  type: string;
  [extra: string]: unknown;
}

export interface ProjectedTurnItem {
  position: number;
  visibility: "local" | "inherited" | "synthetic";
  sourceThreadId: string;
  sourceItemId: string;
  item: TurnItem;
}

export interface PlanArtifact {
  id: string;
  threadId: string;
  runId: string | null;
  nodeId: string;
  status: "draft" | "active" | "completed" | "superseded";
  kind: "proposed_plan" | "todo_list";
  markdown?: string;
  steps?: { id: string; text: string; status: string }[];
}

export interface CheckpointScope {
  id: string;
  threadId: string;
  runId: string | null;
  nodeId: string;
  parentScopeId: string | null;
  providerThreadId: string | null;
  kind: string;
  ordinalWithinParent: number;
  advancesAppRunCount: boolean;
  cwd: string;
  createdAt: Iso;
}

export interface Checkpoint {
  id: string;
  threadId: string;
  scopeId: string;
  runId: string | null;
  nodeId: string;
  parentCheckpointId: string | null;
  ordinalWithinScope: number;
  appRunOrdinal: number | null;
  ref: string;
  status: "ready" | "missing" | "error" | "stale";
  files: { path: string; kind: string; additions: number; deletions: number }[];
  capturedAt: Iso;
}

export interface Subagent {
  id: string;
  threadId: string;
  runId: string | null;
  parentNodeId: string;
  origin: "provider_native" | "app_owned";
  createdBy: "user" | "agent" | "system";
  driver: string;
  providerInstanceId: string;
  providerThreadId: string | null;
  childThreadId: string | null;
  nativeTaskRef: unknown;
  prompt: string;
  title: string | null;
  model: string | null;
  completionWake?: "always" | "settled_only";
  completionDelivery?: { state: string; observedByRunId: string | null };
  status: string;
  result: string | null;
  startedAt: Iso | null;
  completedAt: Iso | null;
  updatedAt: Iso;
}

export interface DomainEvent {
  id: string;
  threadId: string;
  runId?: string;
  nodeId?: string;
  driver?: string;
  providerInstanceId?: string;
  occurredAt: Iso;
  type: string;
  payload: unknown;
}

export interface StoredEvent {
  sequence: number;
  commandId: string | null;
  event: DomainEvent;
}

/** `OrchestrationProjectShell` plus the `/api/projects` extras (faviconPath, deletedAt). */
export interface ProjectRecord {
  id: string;
  title: string;
  workspaceRoot: string;
  repositoryIdentity: unknown;
  faviconPath: string | null;
  defaultModelSelection: ModelSelection | null;
  scripts: unknown[];
  createdAt: Iso;
  updatedAt: Iso;
  deletedAt: Iso | null;
}
