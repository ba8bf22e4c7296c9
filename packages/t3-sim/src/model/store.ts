/**
 * The environment's state and its single, application-wide event sequence.
 *
 * Every change goes through `transact`: a handler stages domain events through a `Tx`, and the
 * commit gives them consecutive sequences, stores them in the thread's log (for afterSequence
 * replay), bumps the thread's `updatedAt`, and then tells the stream listeners once per commit
 * (so one command's events travel in one Chunk, like the real server).
 */
import { UNKNOWNS_0046_AS_BEFORE, type Unknowns0046 } from "./age-0046.js";
import type { IdSource } from "./ids.js";
import type {
  AppThread,
  Checkpoint,
  CheckpointScope,
  ConversationMessage,
  DomainEvent,
  ExecutionNode,
  PlanArtifact,
  ProjectedTurnItem,
  ProjectRecord,
  ProviderSession,
  ProviderThread,
  ProviderTurn,
  Run,
  RunAttempt,
  RuntimeRequest,
  StoredEvent,
  Subagent,
  TurnItem,
} from "./types.js";
import { type FileTree, SimWorkspaces } from "./workspace-files.js";

export type ThreadLocation = "active" | "archive" | "removed";

export interface ThreadRecord {
  thread: AppThread;
  runs: Map<string, Run>;
  attempts: Map<string, RunAttempt>;
  nodes: Map<string, ExecutionNode>;
  subagents: Map<string, Subagent>;
  providerSessions: Map<string, ProviderSession>;
  providerThreads: Map<string, ProviderThread>;
  providerTurns: Map<string, ProviderTurn>;
  runtimeRequests: Map<string, RuntimeRequest>;
  messages: Map<string, ConversationMessage>;
  plans: Map<string, PlanArtifact>;
  turnItems: Map<string, TurnItem>;
  checkpointScopes: Map<string, CheckpointScope>;
  checkpoints: Map<string, Checkpoint>;
  contextTransfers: Map<string, Record<string, unknown>>;
  /** Timeline rows copied from the source thread when this thread was forked. */
  inherited: ProjectedTurnItem[];
  events: StoredEvent[];
  lastSequence: number;
  nextItemOrdinal: number;
  /** `run.interrupt {holdQueue:true}` holds queued runs until `queue.resume`. */
  queueHeld: boolean;
  /** False where the 0.0.46 age plays rows without `pendingSecretRequest` (age-0046.ts). */
  rowNamesSecret?: boolean;
  /**
   * The files of the thread's folder at each checkpoint, by run ordinal; 0 is the folder before
   * the first run (T3's ordinal-0 ref). Never on the wire: the diff RPCs answer from them.
   */
  checkpointTrees: Map<number, FileTree>;
}

export const locationOf = (record: ThreadRecord): ThreadLocation =>
  record.thread.deletedAt ? "removed" : record.thread.archivedAt ? "archive" : "active";

export interface ThreadCommit {
  readonly kind: "thread";
  readonly record: ThreadRecord;
  readonly events: readonly StoredEvent[];
  readonly before: ThreadLocation | "new";
  readonly after: ThreadLocation;
}

export interface ProjectCommit {
  readonly kind: "project";
  readonly project: ProjectRecord;
  readonly sequence: number;
  readonly removed: boolean;
}

export type CommitListener = (commit: ThreadCommit | ProjectCommit) => void;

/**
 * A background repository-identity resolution finished for these workspace roots (upstream's
 * ProjectEnrichmentService change); it is not an application event and has no sequence.
 */
export type EnrichmentListener = (workspaceRoots: readonly string[]) => void;

export interface EventEnvelope {
  runId?: string;
  nodeId?: string;
  driver?: string;
  providerInstanceId?: string;
}

export function newThreadRecord(thread: AppThread): ThreadRecord {
  return {
    thread,
    runs: new Map(),
    attempts: new Map(),
    nodes: new Map(),
    subagents: new Map(),
    providerSessions: new Map(),
    providerThreads: new Map(),
    providerTurns: new Map(),
    runtimeRequests: new Map(),
    messages: new Map(),
    plans: new Map(),
    turnItems: new Map(),
    checkpointScopes: new Map(),
    checkpoints: new Map(),
    contextTransfers: new Map(),
    inherited: [],
    events: [],
    lastSequence: 0,
    nextItemOrdinal: 1_000_001,
    queueHeld: false,
    checkpointTrees: new Map(),
  };
}

export class SimStore {
  sequence = 0;
  /** Ordered by last change: a commit moves its thread to the end (the shell's row order). */
  readonly threads = new Map<string, ThreadRecord>();
  readonly projects = new Map<string, ProjectRecord & { lastSequence: number }>();
  /** Deleted projects and the sequence of their deletion, for a shell resume's replay. */
  readonly removedProjects = new Map<string, number>();
  projectsUpdatedAt: string;
  /** The simulated repositories behind project roots and worktrees (workspace-files.ts). */
  readonly workspaces = new SimWorkspaces();
  /** What agents were set to do and in which mode (agent-work.ts); tests only, never on the wire. */
  readonly agentWork: AgentWork[] = [];
  readonly #listeners = new Set<CommitListener>();
  readonly #enrichmentListeners = new Set<EnrichmentListener>();
  #timeOverride: number | undefined;
  /** The 0.0.46 age's open points as this environment plays them (age-0046.ts). */
  unknowns: Unknowns0046 = UNKNOWNS_0046_AS_BEFORE;

  constructor(
    readonly clockNow: () => number,
    readonly ids: IdSource,
  ) {
    this.projectsUpdatedAt = new Date(clockNow()).toISOString();
  }

  now(): number {
    return this.#timeOverride ?? this.clockNow();
  }

  iso(): string {
    return new Date(this.now()).toISOString();
  }

  /** Runs `fn` with the store's clock pinned to `atMs` (seeds use this to backdate history). */
  at<T>(atMs: number, fn: () => T): T {
    const previous = this.#timeOverride;
    this.#timeOverride = atMs;
    try {
      return fn();
    } finally {
      this.#timeOverride = previous;
    }
  }

  subscribe(listener: CommitListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  get listenerCount(): number {
    return this.#listeners.size;
  }

  onEnrichment(listener: EnrichmentListener): () => void {
    this.#enrichmentListeners.add(listener);
    return () => this.#enrichmentListeners.delete(listener);
  }

  announceEnrichment(workspaceRoots: readonly string[]): void {
    for (const listener of [...this.#enrichmentListeners]) listener(workspaceRoots);
  }

  liveThread(threadId: string): ThreadRecord | undefined {
    const record = this.threads.get(threadId);
    return record && !record.thread.deletedAt ? record : undefined;
  }

  /**
   * Applies `fn` to `record` as one commit. `fn` must validate before staging anything: a
   * thrown error after a staged change would leave the record changed without events.
   * Returns the commit's last sequence (the record's previous one when nothing was staged).
   */
  transact(record: ThreadRecord, commandId: string | null, fn: (tx: Tx) => void, isNew = false): number {
    const before: ThreadLocation | "new" = isNew ? "new" : locationOf(record);
    record.rowNamesSecret = this.unknowns.secretRequests === "simulator";
    const tx = new Tx(this, record, commandId);
    fn(tx);
    if (tx.pending.length === 0) return record.lastSequence;
    const stored: StoredEvent[] = tx.pending.map((event) => ({
      sequence: ++this.sequence,
      commandId,
      event,
    }));
    record.events.push(...stored);
    record.lastSequence = this.sequence;
    if (tx.touched && record.thread.updatedAt !== tx.now)
      record.thread = { ...record.thread, updatedAt: tx.now };
    this.threads.delete(record.thread.id);
    this.threads.set(record.thread.id, record);
    const commit: ThreadCommit = {
      kind: "thread",
      record,
      events: stored,
      before,
      after: locationOf(record),
    };
    for (const listener of [...this.#listeners]) listener(commit);
    return record.lastSequence;
  }

  commitProject(project: ProjectRecord, removed: boolean): number {
    const sequence = ++this.sequence;
    if (removed) {
      this.projects.delete(project.id);
      this.removedProjects.set(project.id, sequence);
    } else {
      this.projects.set(project.id, { ...project, lastSequence: sequence });
      this.removedProjects.delete(project.id);
    }
    this.projectsUpdatedAt = this.iso();
    const commit: ProjectCommit = { kind: "project", project, sequence, removed };
    for (const listener of [...this.#listeners]) listener(commit);
    return sequence;
  }
}

/** Stages one commit's events and applies each change to the record as it is staged. */
export class Tx {
  readonly pending: DomainEvent[] = [];
  readonly now: string;
  /** Whether the commit changed anything (it then moves the thread's `updatedAt`). */
  touched = false;

  constructor(
    readonly store: SimStore,
    readonly record: ThreadRecord,
    readonly commandId: string | null,
  ) {
    this.now = store.iso();
  }

  get threadId(): string {
    return this.record.thread.id;
  }

  emit(type: string, payload: unknown, envelope: EventEnvelope = {}): void {
    const origin = this.commandId ? `command:${this.commandId}` : "runtime";
    // Built key by key (not with spreads): this runs for every event, also in bulk seeding.
    const event: DomainEvent = {
      id: `event:thread:${this.threadId}:${origin}:${this.store.ids.uuid()}`,
      threadId: this.threadId,
    } as DomainEvent;
    if (envelope.runId !== undefined) event.runId = envelope.runId;
    if (envelope.nodeId !== undefined) event.nodeId = envelope.nodeId;
    if (envelope.driver !== undefined) event.driver = envelope.driver;
    event.providerInstanceId = envelope.providerInstanceId ?? this.record.thread.providerInstanceId;
    event.occurredAt = this.now;
    event.type = type;
    event.payload = payload;
    this.pending.push(event);
    if (!type.startsWith("thread.")) this.touched = true;
  }

  /**
   * Replaces the app thread and emits `type` (a `thread.*` event) with the full new thread.
   * A patch that changes nothing still commits its event but leaves `updatedAt` alone, like
   * 0.0.31's unpin of an unpinned thread (fixture 52: new sequence, same updatedAt).
   */
  thread(type: string, patch: Partial<AppThread>): AppThread {
    const current = this.record.thread as unknown as Record<string, unknown>;
    const changed = Object.entries(patch).some(([key, value]) => (current[key] ?? null) !== (value ?? null));
    if (changed || type === "thread.created") this.touched = true;
    const next: AppThread = {
      ...this.record.thread,
      ...patch,
      updatedAt: changed ? this.now : this.record.thread.updatedAt,
    };
    if (type !== "thread.created" && next.titleRegeneration === undefined) next.titleRegeneration = null;
    this.record.thread = next;
    this.emit(type, next);
    return next;
  }

  nextItemOrdinal(): number {
    return this.record.nextItemOrdinal++;
  }

  #runEnvelope(runId: string | null, nodeId: string | null, providerInstanceId?: string): EventEnvelope {
    const envelope: EventEnvelope = {};
    if (runId) envelope.runId = runId;
    if (nodeId) envelope.nodeId = nodeId;
    if (providerInstanceId) envelope.providerInstanceId = providerInstanceId;
    return envelope;
  }

  run(run: Run): Run {
    const type = this.record.runs.has(run.id) ? "run.updated" : "run.created";
    this.record.runs.set(run.id, run);
    this.emit(type, run, this.#runEnvelope(run.id, run.rootNodeId, run.providerInstanceId));
    return run;
  }

  attempt(attempt: RunAttempt): RunAttempt {
    const type = this.record.attempts.has(attempt.id) ? "run-attempt.updated" : "run-attempt.created";
    this.record.attempts.set(attempt.id, attempt);
    this.emit(
      type,
      attempt,
      this.#runEnvelope(attempt.runId, attempt.rootNodeId, attempt.providerInstanceId),
    );
    return attempt;
  }

  node(node: ExecutionNode): ExecutionNode {
    this.record.nodes.set(node.id, node);
    this.emit("node.updated", node, this.#runEnvelope(node.runId, node.id));
    return node;
  }

  providerThread(providerThread: ProviderThread): ProviderThread {
    this.record.providerThreads.set(providerThread.id, providerThread);
    this.emit("provider-thread.updated", providerThread, {
      driver: providerThread.driver,
      providerInstanceId: providerThread.providerInstanceId,
    });
    return providerThread;
  }

  providerSession(session: ProviderSession): ProviderSession {
    const type = this.record.providerSessions.has(session.id)
      ? "provider-session.updated"
      : "provider-session.attached";
    this.record.providerSessions.set(session.id, session);
    this.emit(type, session, { driver: session.driver, providerInstanceId: session.providerInstanceId });
    return session;
  }

  providerTurn(turn: ProviderTurn, runId: string): ProviderTurn {
    this.record.providerTurns.set(turn.id, turn);
    this.emit("provider-turn.updated", turn, this.#runEnvelope(runId, turn.nodeId));
    return turn;
  }

  runtimeRequest(request: RuntimeRequest, runId: string | null): RuntimeRequest {
    this.record.runtimeRequests.set(request.id, request);
    this.emit("runtime-request.updated", request, this.#runEnvelope(runId, request.nodeId));
    return request;
  }

  message(message: ConversationMessage): ConversationMessage {
    this.record.messages.set(message.id, message);
    this.emit("message.updated", message, this.#runEnvelope(message.runId, message.nodeId));
    return message;
  }

  item(item: TurnItem): TurnItem {
    this.record.turnItems.set(item.id, item);
    this.emit("turn-item.updated", item, this.#runEnvelope(item.runId, item.nodeId));
    return item;
  }

  plan(plan: PlanArtifact): PlanArtifact {
    this.record.plans.set(plan.id, plan);
    this.emit("plan.updated", plan, this.#runEnvelope(plan.runId, plan.nodeId));
    return plan;
  }

  scope(scope: CheckpointScope): CheckpointScope {
    this.record.checkpointScopes.set(scope.id, scope);
    this.emit("checkpoint-scope.created", scope, this.#runEnvelope(scope.runId, scope.nodeId));
    return scope;
  }

  checkpoint(checkpoint: Checkpoint): Checkpoint {
    this.record.checkpoints.set(checkpoint.id, checkpoint);
    this.emit("checkpoint.captured", checkpoint, this.#runEnvelope(checkpoint.runId, checkpoint.nodeId));
    return checkpoint;
  }

  subagent(subagent: Subagent): Subagent {
    this.record.subagents.set(subagent.id, subagent);
    this.emit("subagent.updated", subagent, this.#runEnvelope(subagent.runId, subagent.parentNodeId));
    return subagent;
  }

  contextTransfer(transfer: Record<string, unknown> & { id: string }): void {
    const type = this.record.contextTransfers.has(transfer.id)
      ? "context-transfer.updated"
      : "context-transfer.created";
    this.record.contextTransfers.set(transfer.id, transfer);
    this.emit(type, transfer);
  }
}

/** What the simulated agents were set to do (agent-work.ts records it), kept in the store. */
/** `turn_started`: a run (or a restarted attempt) took the provider; `steered`: a running turn got new input; `resumed`: an answered request let a paused turn go on. */
export type AgentWorkKind = "turn_started" | "steered" | "resumed";

export interface AgentWork {
  readonly threadId: string;
  readonly runId: string;
  readonly kind: AgentWorkKind;
  readonly runtimeMode: string;
  /** The simulator's clock, ISO. */
  readonly at: string;
}
