/**
 * The minimal structural shapes the state projection reads from T3's wire objects.
 *
 * These are deliberately looser than the wire schemas: every field may be missing or null, and enum
 * fields are plain strings, because the projection must keep answering for older and newer T3
 * builds (an unknown run status maps to `unknown`, it never throws). Any object that has at least
 * these fields — a raw `JSON.parse` result, a zod-parsed row — can be passed in.
 *
 * `undefined` and `null` are NOT the same everywhere: for `snoozedUntil` and `lastVisitedAt` a
 * missing field means "this server does not send it" (the woke marker becomes `null`), while
 * `null` means "sent, and empty".
 */

export type Maybe<T> = T | null | undefined;

/** `ModelSelection`, including the legacy `{provider, model}` form and object-shaped options. */
export interface ModelSelectionInput {
  instanceId?: Maybe<string>;
  /** Legacy name of `instanceId`. */
  provider?: Maybe<string>;
  model?: Maybe<string>;
  options?: Maybe<ReadonlyArray<{ id?: unknown; value?: unknown }> | Readonly<Record<string, unknown>>>;
}

export interface ShellPendingRuntimeRequestInput {
  id?: Maybe<string>;
  kind?: Maybe<string>;
  createdAt?: Maybe<string>;
}

/**
 * Newer servers: the oldest pending secret request of the thread (the simulator's name for the
 * row field, docs/t3-protocol-notes.md). Answered only in T3's own app.
 */
export interface ShellPendingSecretRequestInput {
  id?: Maybe<string>;
  name?: Maybe<string>;
  createdAt?: Maybe<string>;
}

export interface BackgroundTaskInput {
  taskId?: Maybe<string>;
  description?: Maybe<string>;
  taskType?: Maybe<string>;
  /** Newer servers: subagent, command, monitor, background_task. */
  kind?: Maybe<string>;
}

/**
 * A usage-limit recovery record. It is not part of the stored T3 contract (newer servers only);
 * the projection reads it when present.
 */
export interface LimitRecoveryInput {
  runId?: Maybe<string>;
  autoResume?: Maybe<boolean>;
  resetAt?: Maybe<string>;
  resumeAt?: Maybe<string>;
}

/** A thread row of the shell snapshot (`OrchestrationV2ThreadShell`), the sidebar row. */
export interface ShellThreadInput {
  id?: Maybe<string>;
  projectId?: Maybe<string>;
  title?: Maybe<string>;
  providerInstanceId?: Maybe<string>;
  modelSelection?: Maybe<ModelSelectionInput>;
  runtimeMode?: Maybe<string>;
  branch?: Maybe<string>;
  worktreePath?: Maybe<string>;
  activeProviderThreadId?: Maybe<string>;
  latestRunId?: Maybe<string>;
  latestRunCompletedAt?: Maybe<string>;
  activeRunId?: Maybe<string>;
  activityRunStatus?: Maybe<string>;
  /** `idle` or a run status: the status of the NEWEST run, not necessarily the active one. */
  status?: Maybe<string>;
  /** Shape not pinned by the stored contract: a string or a failure object `{message, class}`. */
  lastError?: unknown;
  lastErrorClass?: Maybe<string>;
  /** Newer servers: when a usage limit that stopped the thread resets. */
  usageLimitResetAt?: Maybe<string>;
  limitRecovery?: Maybe<LimitRecoveryInput>;
  pendingRuntimeRequest?: Maybe<ShellPendingRuntimeRequestInput>;
  pendingSecretRequest?: Maybe<ShellPendingSecretRequestInput>;
  hasActionableProposedPlan?: Maybe<boolean>;
  pendingBackgroundTasks?: Maybe<ReadonlyArray<BackgroundTaskInput>>;
  updatedAt?: Maybe<string>;
  archivedAt?: Maybe<string>;
  deletedAt?: Maybe<string>;
  settledOverride?: Maybe<string>;
  settledAt?: Maybe<string>;
  snoozedUntil?: Maybe<string>;
  snoozedAt?: Maybe<string>;
  pinnedAt?: Maybe<string>;
  lastVisitedAt?: Maybe<string>;
}

/** A project row of the shell snapshot. */
export interface ProjectInput {
  id?: Maybe<string>;
  title?: Maybe<string>;
  workspaceRoot?: Maybe<string>;
}

/** `OrchestrationV2Run`. */
export interface RunInput {
  id?: Maybe<string>;
  ordinal?: Maybe<number>;
  status?: Maybe<string>;
  modelSelection?: Maybe<ModelSelectionInput>;
}

/** `OrchestrationV2RuntimeRequest`: the request itself; its public content lives in a turn item. */
export interface RuntimeRequestInput {
  id?: Maybe<string>;
  nodeId?: Maybe<string>;
  kind?: Maybe<string>;
  /** `pending | resolved | expired | cancelled`. */
  status?: Maybe<string>;
  responseCapability?: unknown;
  createdAt?: Maybe<string>;
}

/**
 * A turn item. Only the fields the request join and the detail hint read; the per-type content
 * fields are `unknown` because they are validated before anything is exposed.
 */
export interface TurnItemInput {
  id?: Maybe<string>;
  type?: Maybe<string>;
  nodeId?: Maybe<string>;
  title?: Maybe<string>;
  text?: unknown;
  /** `user_input_request` and `approval_request` items. */
  requestId?: Maybe<string>;
  /** `approval_request` items. */
  requestKind?: Maybe<string>;
  /** `secret_request` items (newer servers): `pending | saved | declined | cancelled`. */
  secretStatus?: Maybe<string>;
  /** What a secret request asks for: `name` in the simulator's reading, `label` upstream (e65063cc). */
  name?: unknown;
  label?: unknown;
  startedAt?: Maybe<string>;
  prompt?: unknown;
  appName?: unknown;
  options?: unknown;
  questions?: unknown;
  responseMode?: unknown;
}

/** A conversation message of the projection. */
export interface MessageInput {
  id?: Maybe<string>;
  runId?: Maybe<string>;
  role?: Maybe<string>;
  text?: unknown;
  streaming?: Maybe<boolean>;
  createdAt?: Maybe<string>;
  updatedAt?: Maybe<string>;
}

/** A provider session of the projection. Its exact V2 field list is not pinned; these are read. */
export interface ProviderSessionInput {
  id?: Maybe<string>;
  providerInstanceId?: Maybe<string>;
  status?: Maybe<string>;
  cwd?: Maybe<string>;
  model?: Maybe<string>;
  modelSelection?: Maybe<ModelSelectionInput>;
  updatedAt?: Maybe<string>;
}

/** The thread projection (`projection` of `/threads/:id` or `/bounded`). */
export interface ThreadProjectionInput {
  /** The thread's own fields as the projection (read after the shell) has them: the fresher. */
  thread?: Maybe<Partial<ShellThreadInput>>;
  runs?: Maybe<ReadonlyArray<RunInput>>;
  runtimeRequests?: Maybe<ReadonlyArray<RuntimeRequestInput>>;
  messages?: Maybe<ReadonlyArray<MessageInput>>;
  turnItems?: Maybe<ReadonlyArray<TurnItemInput>>;
  /** Timeline rows `{position, visibility, ..., item}` (windowed in a bounded snapshot). */
  visibleTurnItems?: Maybe<ReadonlyArray<{ item?: Maybe<TurnItemInput> }>>;
  providerSessions?: Maybe<ReadonlyArray<ProviderSessionInput>>;
  checkpoints?: Maybe<ReadonlyArray<CheckpointInput>>;
}

/** One file of a checkpoint's summary (`OrchestrationV2CheckpointFileSummary`). */
export interface CheckpointFileInput {
  path?: Maybe<string>;
  /** `modified` for every file on 0.0.31 (it does not tell added from changed). */
  kind?: Maybe<string>;
  additions?: Maybe<number>;
  deletions?: Maybe<number>;
}

/** `OrchestrationV2Checkpoint`: a git ref T3 captured when a run ended, with its files' counts. */
export interface CheckpointInput {
  id?: Maybe<string>;
  runId?: Maybe<string>;
  /** `ready | missing | error | stale`: only a ready one can be diffed. */
  status?: Maybe<string>;
  /** The run's ordinal: T3's "turn count" in `getTurnDiff`. */
  appRunOrdinal?: Maybe<number>;
  files?: Maybe<ReadonlyArray<CheckpointFileInput>>;
  capturedAt?: Maybe<string>;
}

/** History bounds of a bounded snapshot. A full snapshot has neither field: it is complete. */
export interface HistoryBoundsInput {
  hasMoreHistory?: Maybe<boolean>;
  payloadBudgetExceeded?: Maybe<boolean>;
}
