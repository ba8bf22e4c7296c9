/**
 * One simulated T3 environment: the `EnvironmentModel` the transport serves, plus a control API
 * for tests (seeding, scripting runs, inspection). Everything is synchronous except the run
 * engine, which moves only when the SimClock does.
 */

import { existsSync, mkdirSync } from "node:fs";
import type { SimClock } from "../clock.js";
import { SUPERSET_EXTRA_SCOPE, type Unknowns0046, unknowns0046, withoutCause } from "./age-0046.js";
import type { CommandContext } from "./commands/context.js";
import { CommandDispatcher, type ReceivedCommand } from "./commands/dispatcher.js";
import { reportDelegatedOutcome } from "./commands/lineage-handlers.js";
import { type CompatProfile, type ModelCompat, modelCompat } from "./compat-0031.js";
import { DESCRIPTOR_CAPABILITIES, serverConfig } from "./config.js";
import type {
  EnvironmentDescriptor,
  EnvironmentModel,
  HttpOutcome,
  RpcOutcome,
  StreamOpenResult,
  StreamSink,
} from "./contract.js";
import { getFullThreadDiff, getTurnDiff } from "./diff-reads.js";
import { RunEngine } from "./engine.js";
import { IdSource } from "./ids.js";
import { ThreadLauncher } from "./launch.js";
import {
  buildArchivedShellSnapshot,
  buildProjection,
  buildShellSnapshot,
  buildShellThread,
} from "./projection.js";
import { ProjectMutations } from "./projects.js";
import { applyProviderStates, type ProviderState } from "./provider-states.js";
import { getWorkflowScript, searchThreads, ThreadReads } from "./reads.js";
import type { RunScript } from "./scripts.js";
import {
  cancelBackgroundWorkOnRestart,
  recordSecretRequest,
  type SecretRequestSpec,
  settleSecretRequest,
} from "./secret-requests.js";
import { addThread, type ThreadSpec } from "./seed-thread.js";
import { openCurrentArchivedShellStream, openCurrentShellStream } from "./shell-stream-current.js";
import type { AgentWork } from "./store.js";
import { SimStore, type ThreadRecord } from "./store.js";
import {
  openArchivedShellStream,
  openServerConfigStream,
  openServerLifecycleStream,
  openShellStream,
  openThreadStream,
} from "./streams.js";
import type { ModelSelection, ProjectRecord, RestartCancelledBackgroundWork, StoredEvent } from "./types.js";
import { listRefs, refreshStatus } from "./vcs-reads.js";

export interface EnvironmentModelOptions {
  environmentId: string;
  label: string;
  serverVersion?: string;
  clock: SimClock;
  seed: "demo" | "empty";
  /** Plays the transitional 0.0.31 build: no orchestrationProtocolVersion anywhere. */
  transitional?: boolean;
  /** Plays an older build exactly (see compat-0031.ts); implies `transitional`. */
  compat?: CompatProfile;
  /** Rejects unknown fields in commands (T3 itself ignores them). */
  strictCommands?: boolean;
  /**
   * Current upstream coalesces shell updates over 50 ms and holds back rows whose only change is
   * `updatedAt` (default true). False sends one shell item per commit, every row (tests that need
   * every item). Transitional environments never coalesce (0.0.31 sent one item per commit).
   */
  shellSuppression?: boolean;
  /**
   * A fixed number of timeline rows per bounded window / history page; absent: upstream's policy
   * (10 user turns, older pages 20, 75 rows / 1 MiB without turns; history-window.ts).
   */
  historyPageSize?: number;
  /** project.create checks the workspace root exists (default: the real file system). */
  workspaceRootExists?: (path: string) => boolean;
  /** Makes a missing workspace root for `createWorkspaceRootIfMissing` (default: the real file system). */
  createWorkspaceRoot?: (path: string) => void;
  /** The 0.0.46 age's open points (age-0046.ts); default: as the simulator played them before. */
  unknowns?: Partial<Unknowns0046>;
  /** RPCs this build lacks: each answers like any unknown tag (a T3 of another age, in tests). */
  lacksMethods?: readonly string[];
}

export interface ThreadInspection {
  readonly shell: Record<string, unknown>;
  readonly projection: Record<string, unknown>;
  readonly events: readonly StoredEvent[];
  readonly lastSequence: number;
  readonly location: "active" | "archive" | "removed";
}

const UNARY_TAGS = [
  "server.getConfig",
  "server.probe",
  "orchestration.dispatchCommand",
  "orchestration.launchThread",
  "orchestration.getArchivedShellSnapshot",
  "orchestration.getThreadProjection",
  "orchestration.getTurnDiff",
  "orchestration.getFullThreadDiff",
  "orchestration.searchThreads",
  "orchestration.getWorkflowScript",
  "orchestration.getTurnItem",
  "projects.mutate",
  "vcs.refreshStatus",
  "vcs.listRefs",
] as const;
const STREAM_TAGS = [
  "orchestration.subscribeShell",
  "orchestration.subscribeThread",
  "orchestration.subscribeArchivedShell",
  "subscribeServerConfig",
  "subscribeServerLifecycle",
] as const;

const HOME_DIR = "/home/sim";

export class SimEnvironmentModel implements EnvironmentModel {
  readonly environmentId: string;
  readonly label: string;
  readonly serverVersion: string;
  readonly clock: SimClock;
  readonly store: SimStore;
  readonly engine: RunEngine;
  readonly #transitional: boolean;
  readonly #compat: ModelCompat | undefined;
  readonly #lacks: ReadonlySet<string>;
  readonly #dispatcher: CommandDispatcher;
  readonly #launcher: ThreadLauncher;
  readonly #reads: ThreadReads;
  readonly #projects: ProjectMutations;
  readonly #ctx: CommandContext;
  readonly #startedAt: string;
  /** Providers a test made not ready (provider-states.ts). */
  readonly #providerStates = new Map<string, ProviderState>();
  readonly #shellSuppression: boolean;

  constructor(options: EnvironmentModelOptions) {
    this.environmentId = options.environmentId;
    this.label = options.label;
    this.#compat = modelCompat(options.compat);
    this.#lacks = new Set(options.lacksMethods ?? []);
    this.#transitional = (options.transitional ?? false) || this.#compat !== undefined;
    this.serverVersion =
      options.serverVersion ?? this.#compat?.serverVersion ?? (this.#transitional ? "0.0.31" : "0.0.46");
    this.clock = options.clock;
    this.store = new SimStore(() => options.clock.now(), new IdSource(options.environmentId));
    this.store.unknowns = unknowns0046(options.unknowns);
    this.engine = new RunEngine(this.store, options.clock);
    this.#ctx = {
      store: this.store,
      engine: this.engine,
      clockTimer: (delayMs, callback) => void options.clock.setTimer(delayMs, callback),
      newer: !this.#transitional,
    };
    this.engine.onRunEnded((record) => reportDelegatedOutcome(this.#ctx, record));
    this.#dispatcher = new CommandDispatcher(this.#ctx, options.strictCommands ?? false);
    this.#launcher = new ThreadLauncher(this.#ctx, this.#dispatcher, options.strictCommands ?? false);
    this.#reads = new ThreadReads(
      this.store,
      options.historyPageSize === undefined ? {} : { fixedRows: options.historyPageSize },
    );
    this.#projects = new ProjectMutations(
      this.store,
      this.engine,
      this.#dispatcher,
      {
        exists: options.workspaceRootExists ?? ((path) => existsSync(path)),
        create: options.createWorkspaceRoot ?? ((path) => void mkdirSync(path, { recursive: true })),
      },
      `${HOME_DIR}/code`,
    );
    this.#startedAt = this.store.iso();
    this.#shellSuppression = options.shellSuppression ?? true;
  }

  // ---- EnvironmentModel ------------------------------------------------------------------

  descriptor(): EnvironmentDescriptor {
    return {
      environmentId: this.environmentId,
      label: this.label,
      platform: { os: "linux", arch: "x64" },
      serverVersion: this.serverVersion,
      ...(this.#transitional ? {} : { orchestrationProtocolVersion: 2 }),
      capabilities: { ...DESCRIPTOR_CAPABILITIES },
    };
  }

  httpShell(): HttpOutcome {
    return { kind: "ok", body: buildShellSnapshot(this.store, this.#transitional) };
  }

  httpThread(threadId: string): HttpOutcome {
    return this.#reads.httpThread(threadId);
  }

  httpThreadBounded(threadId: string): HttpOutcome {
    return this.#reads.httpThreadBounded(threadId);
  }

  httpThreadHistory(threadId: string, cursor: string | undefined): HttpOutcome {
    return this.#reads.httpThreadHistory(threadId, cursor);
  }

  httpProjects(): HttpOutcome {
    return this.#projects.list();
  }

  httpProjectsMutate(body: unknown): HttpOutcome {
    return this.#projects.mutate(body);
  }

  async callUnary(tag: string, payload: unknown): Promise<RpcOutcome> {
    if (this.#lacks.has(tag)) return { kind: "die", defect: `Unknown request tag: ${tag}` };
    switch (tag) {
      case "server.getConfig":
        return { kind: "success", value: this.serverConfig() };
      case "server.probe":
        return { kind: "success", value: {} };
      case "orchestration.dispatchCommand": {
        const outcome = this.#compat?.refuseCommand(payload) ?? this.#dispatcher.dispatch(payload);
        if (outcome.kind !== "fail" || this.store.unknowns.refusalCause === "sent") return outcome;
        return { kind: "fail", error: withoutCause(outcome.error) };
      }
      case "orchestration.launchThread":
        return this.#launcher.launch(payload);
      case "orchestration.getArchivedShellSnapshot":
        return { kind: "success", value: buildArchivedShellSnapshot(this.store, !this.#transitional) };
      case "orchestration.getThreadProjection":
        return this.#reads.getThreadProjection(payload);
      case "orchestration.getTurnDiff":
        return getTurnDiff(this.store, payload);
      case "orchestration.getFullThreadDiff":
        return getFullThreadDiff(this.store, payload);
      case "orchestration.searchThreads":
        return searchThreads(this.store, payload);
      case "orchestration.getWorkflowScript":
        return getWorkflowScript(HOME_DIR, payload);
      case "projects.mutate":
        return this.#projects.mutateRpc(payload);
      case "orchestration.getTurnItem":
        if (!this.#servesTurnItem()) return { kind: "die", defect: `Unknown request tag: ${tag}` };
        return this.#reads.getTurnItem(payload);
      case "vcs.refreshStatus":
        return refreshStatus(this.store, payload);
      case "vcs.listRefs":
        return listRefs(this.store, payload);
      default:
        return { kind: "die", defect: `Unknown request tag: ${tag}` };
    }
  }

  openStream(tag: string, payload: unknown, sink: StreamSink): StreamOpenResult {
    const serverDeps = {
      clock: this.clock,
      config: () => this.serverConfig(),
      environment: () => this.descriptor() as unknown as Record<string, unknown>,
      startedAt: this.#startedAt,
      cwd: `${HOME_DIR}/code`,
    };
    switch (tag) {
      case "orchestration.subscribeShell":
        return this.#transitional
          ? openShellStream(this.store, payload, sink)
          : openCurrentShellStream(this.store, this.#shellOptions(), payload, sink);
      case "orchestration.subscribeThread":
        return openThreadStream(
          this.store,
          payload,
          sink,
          this.store.unknowns.threadSnapshotDefault === "bounded"
            ? (record) => this.#reads.boundedSnapshot(record)
            : undefined,
        );
      case "orchestration.subscribeArchivedShell":
        return this.#transitional
          ? openArchivedShellStream(this.store, payload, sink)
          : openCurrentArchivedShellStream(this.store, this.#shellOptions(), payload, sink);
      case "subscribeServerConfig":
        return openServerConfigStream(serverDeps, payload, sink);
      case "subscribeServerLifecycle":
        return openServerLifecycleStream(serverDeps, payload, sink);
      default:
        return { kind: "die", defect: `Unknown request tag: ${tag}` };
    }
  }

  #shellOptions() {
    return { clock: this.clock, suppression: this.#shellSuppression };
  }

  isStreamTag(tag: string): boolean {
    return (STREAM_TAGS as readonly string[]).includes(tag);
  }

  knownTags(): readonly string[] {
    // getTurnItem is newer than the transitional builds.
    const tags = [...UNARY_TAGS, ...STREAM_TAGS].filter(
      (tag) => (this.#servesTurnItem() || tag !== "orchestration.getTurnItem") && !this.#lacks.has(tag),
    );
    const compat = this.#compat;
    return compat ? tags.filter((tag) => compat.servesMethod(tag)) : tags;
  }

  #servesTurnItem(): boolean {
    return !this.#transitional && this.store.unknowns.getTurnItem === "served";
  }

  /** Whether `GET /api/projects` exists here (the 0.0.46 age may play it absent). */
  servesProjectsRoute(): boolean {
    return this.store.unknowns.projectsRoute === "present";
  }

  /** What a pairing grants beyond an explicit scope (the 0.0.46 age may play a superset). */
  extraGrantedScopes(): readonly string[] {
    return this.store.unknowns.scopeGrant === "superset" ? [SUPERSET_EXTRA_SCOPE] : [];
  }

  serverConfig(): Record<string, unknown> {
    const config = serverConfig({
      descriptor: this.descriptor() as unknown as Record<string, unknown>,
      startedAt: this.#startedAt,
      homeDir: HOME_DIR,
      cwd: `${HOME_DIR}/code`,
    });
    return applyProviderStates(config, this.#providerStates);
  }

  /** Makes a provider instance read as T3 reports a missing CLI or a disabled provider (or ready again). */
  setProviderState(instanceId: string, state: ProviderState): void {
    if (state === "ready") this.#providerStates.delete(instanceId);
    else this.#providerStates.set(instanceId, state);
  }

  // ---- Control API for tests ---------------------------------------------------------------

  /** Every command the environment accepted, in order (dispatches, launches, project mutations). */
  get receivedCommands(): readonly ReceivedCommand[] {
    return this.#dispatcher.received;
  }

  /**
   * What agents were set to do, in which runtime mode (agent-work.ts): every run that took the
   * provider, every steer into a running turn, every answer that let a paused turn go on.
   */
  get agentWork(): readonly AgentWork[] {
    return this.store.agentWork;
  }

  /** The application-wide high-water sequence. */
  get sequence(): number {
    return this.store.sequence;
  }

  /** The next run created on `threadId` follows `script` (queued scripts are used in order). */
  scriptNextRun(threadId: string, script: RunScript): void {
    this.engine.scriptNextRun(threadId, script);
  }

  addProject(fields: {
    id?: string;
    title: string;
    workspaceRoot: string;
    defaultModelSelection?: ModelSelection | null;
  }): ProjectRecord {
    return this.#projects.add({ ...fields, id: fields.id ?? this.store.ids.uuid() });
  }

  /** Creates a thread in a given state without touching `receivedCommands` (see seed-thread.ts). */
  /**
   * Gives a folder a repository with these files at its first commit (default: a README and
   * src/index.ts, made when a run first edits the folder).
   */
  addRepository(cwd: string, files: Readonly<Record<string, string>>, branch = "main"): void {
    this.store.workspaces.create(cwd, files, branch);
  }

  addThread(spec: ThreadSpec): string {
    return addThread(this.#ctx, spec);
  }

  getThread(threadId: string): ThreadInspection | undefined {
    const record: ThreadRecord | undefined = this.store.threads.get(threadId);
    if (!record) return undefined;
    return {
      shell: buildShellThread(record, !this.#transitional),
      projection: buildProjection(record),
      events: record.events,
      lastSequence: record.lastSequence,
      location: record.thread.deletedAt ? "removed" : record.thread.archivedAt ? "archive" : "active",
    };
  }

  /**
   * Plays a background repository-identity resolution finishing for `workspaceRoots` (default:
   * every project's root): each open protocol-2 shell stream gets a metadata-only snapshot of
   * those projects (upstream's enrichment refresh), deduplicated per subscription like upstream.
   * `repositoryIdentity`, when given, becomes those projects' identity first (no event, no sequence).
   */
  refreshRepositoryIdentity(
    options: { workspaceRoots?: readonly string[]; repositoryIdentity?: unknown } = {},
  ): void {
    const roots = options.workspaceRoots ?? [
      ...new Set([...this.store.projects.values()].map((project) => project.workspaceRoot)),
    ];
    if (options.repositoryIdentity !== undefined)
      for (const project of this.store.projects.values())
        if (roots.includes(project.workspaceRoot)) project.repositoryIdentity = options.repositoryIdentity;
    this.store.announceEnrichment(roots);
  }

  /**
   * Plays the server recording a secret request on a thread (upstream's internal
   * `secret_request.record`); answers the request id. Only `answerSecretRequest` settles it, as
   * only T3's own app can.
   */
  requestSecret(threadId: string, spec: SecretRequestSpec): string {
    return recordSecretRequest(this.store, threadId, spec);
  }

  /** Plays the person answering (saved) or dismissing a secret request in T3's own app. */
  answerSecretRequest(threadId: string, requestId: string, status: "saved" | "declined" | "cancelled"): void {
    settleSecretRequest(this.store, threadId, requestId, status);
  }

  /** Plays restart recovery cancelling background work of the thread's latest run. */
  cancelBackgroundWorkOnRestart(threadId: string, work: readonly RestartCancelledBackgroundWork[]): void {
    cancelBackgroundWorkOnRestart(this.store, threadId, work);
  }

  /** Stops every scripted run (timers stay on the clock, which the simulator disposes). */
  dispose(): void {
    for (const record of this.store.threads.values()) this.engine.stopThread(record.thread.id);
  }
}
