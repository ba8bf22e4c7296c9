/**
 * A write engine over a real simulator: operate tokens in private token files, a registry built
 * with OPERATE_SCOPES, a journal in a private temp state directory, and a lease built from a real
 * lease scope whose only test-specific part is that a test can close it. Like the gate's relay, the
 * harness hands every write the facts of the lease it names and does what the outcome asks (end
 * the lease after a lost send); the engine decides everything from those facts (ADR 0063).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConnectorError, systemClock } from "@t3-connector/core";
import type { EnvironmentConfig } from "@t3-connector/core/config";
import { EnvironmentRegistry, OPERATE_SCOPES } from "@t3-connector/core/environments";
import { type SimEnvironment, type Simulator, startSimulator, type Unknowns0046 } from "@t3-connector/t3-sim";
import { createTokenFiles } from "@t3-connector/test-support/token-files";
import { afterAll, afterEach, beforeAll } from "vitest";
import {
  ACTION_IDS,
  type ActionId,
  type BoundProjectWrite,
  type LeaseScope,
  parseLeaseScope,
  SAMPLE_IDS,
} from "../../../src/actions/index.js";
import {
  type ConditionalSendDeps,
  type ConditionalSendRequest,
  type ConditionalSendResult,
  conditionalSend,
  createDispatcher,
  type DispatchCompleted,
  type Dispatcher,
  type DispatchOutcome,
  type DispatchRequest,
  dispatchFailureOf,
  type LeaseFacts,
  type ReconcileOutcome,
  type WorkspaceVerifier,
} from "../../../src/dispatch/index.js";
import { type Journal, openJournal } from "../../../src/journal/index.js";

const WRITE_TAGS = new Set([
  "orchestration.dispatchCommand",
  "orchestration.launchThread",
  "projects.mutate",
]);

export const LEASE_ID = "lease-test-1";
export const CHANNEL = "canal:test-org|securetunnel:tunnel-1";

/** A write as a test names it: the lease by id; the harness adds its facts, as the gate's relay does. */
export type LeasedRequest = Omit<DispatchRequest, "lease"> & { readonly lease?: LeaseFacts | null };

/** A reconcile's authority as a test names it: the caller's lease by id, or the operator. */
export type LeasedAuthority = { readonly leaseId: string } | { readonly operator: true };

/** A dispatcher that takes a lease by id and hands the engine that lease's facts. */
export interface LeasedDispatcher extends Omit<Dispatcher, "dispatch" | "dispatchOutcome" | "reconcile"> {
  dispatch(request: LeasedRequest): Promise<DispatchCompleted>;
  dispatchOutcome(request: LeasedRequest): Promise<DispatchOutcome>;
  reconcile(key: string, authority?: LeasedAuthority): Promise<ReconcileOutcome>;
}

/**
 * A lease over a real scope. `open = false` ends it (its signal aborts, as the gate's keeper does);
 * `closeAt = "send"` ends it as soon as a write's `uncertain` record is durable, so the write is
 * waiting for its send when the lease ends (a revoke arriving at that instant).
 */
export class TestLease {
  #ended = new AbortController();
  closeAt: "send" | undefined;
  /** The writes whose lost send ended this lease (what the gate's relay does with the outcome). */
  readonly uncertainSends: { leaseId: string; operationId: string }[] = [];
  readonly launched = new Set<string>();

  constructor(
    readonly leaseId: string,
    public scope: LeaseScope,
  ) {}

  get open(): boolean {
    return !this.#ended.signal.aborted;
  }

  set open(open: boolean) {
    if (open === this.open) return;
    if (open) this.#ended = new AbortController();
    else this.#ended.abort("ended");
  }

  /** The facts the gate would hand in for `leaseId`: this lease's, with its scope as it is now. */
  facts(leaseId: string): LeaseFacts | null {
    if (leaseId !== this.leaseId) return null;
    return {
      leaseId,
      scope: this.scope,
      launched: this.launched,
      ended: this.#ended.signal,
      deadline: { monotonic: Number.POSITIVE_INFINITY, wall: Number.POSITIVE_INFINITY },
    };
  }

  /** The request with its lease's facts, unless the test gave its own. */
  request<T extends { readonly leaseId: string; readonly lease?: LeaseFacts | null }>(
    request: T,
  ): T & { readonly lease: LeaseFacts | null } {
    return { ...request, lease: request.lease === undefined ? this.facts(request.leaseId) : request.lease };
  }

  /** Does what an outcome asks of the gate: a lost send ends the lease; a launched thread joins it. */
  apply(leaseId: string, operationId: string, outcome: DispatchOutcome): void {
    if (outcome.state === "completed" && outcome.launchedThreadId !== undefined) {
      this.launched.add(outcome.launchedThreadId);
    }
    if (outcome.state !== "completed" && outcome.endsLease !== undefined && leaseId === this.leaseId) {
      this.uncertainSends.push({ leaseId, operationId });
      this.open = false;
    }
  }

  /** `dispatcher` taking leases by id, as the gate's relay calls the engine. */
  wrap(dispatcher: Dispatcher): LeasedDispatcher {
    return {
      operationKey: (environment, operationId) => dispatcher.operationKey(environment, operationId),
      dispatch: async (request) => {
        try {
          return await dispatcher.dispatch(this.request(request));
        } catch (error) {
          this.apply(request.leaseId, request.operationId, dispatchFailureOf(error));
          throw error;
        }
      },
      dispatchOutcome: async (request) => {
        const outcome = await dispatcher.dispatchOutcome(this.request(request));
        this.apply(request.leaseId, request.operationId, outcome);
        return outcome;
      },
      reconcile: (key, authority) => {
        if (authority === undefined || "operator" in authority) return dispatcher.reconcile(key, authority);
        const facts = this.facts(authority.leaseId);
        return dispatcher.reconcile(key, facts === null ? undefined : { lease: facts });
      },
    };
  }

  /** A conditional send with this lease's facts; a lost step's send ends the lease. */
  async conditionalSend(
    deps: Omit<ConditionalSendDeps, "dispatcher"> & { readonly dispatcher: Dispatcher | LeasedDispatcher },
    request: Omit<ConditionalSendRequest, "lease"> & { readonly lease?: LeaseFacts | null },
  ): Promise<ConditionalSendResult> {
    const result = await conditionalSend(deps as ConditionalSendDeps, this.request(request));
    if (result.endsLease !== undefined && request.leaseId === this.leaseId) {
      this.uncertainSends.push({ leaseId: request.leaseId, operationId: request.operationId });
      this.open = false;
    }
    return result;
  }

  /** Makes `closeAt = "send"` end the lease once a write's `uncertain` record is durable. */
  watch(journal: Journal): void {
    const markUncertain = journal.markUncertain.bind(journal);
    journal.markUncertain = async (...args) => {
      const record = await markUncertain(...args);
      if (this.closeAt === "send") this.open = false;
      return record;
    };
  }
}

export interface GrantSpec {
  alias: string;
  environmentId: string;
  projects?: { id: string; directory: string }[];
  actions?: readonly ActionId[];
  /** The project creates and forced deletes the lease admits (ADR 0074). */
  projectWrites?: BoundProjectWrite[];
}

export function leaseScope(grants: GrantSpec[]): LeaseScope {
  const environments = grants
    .map((grant) => {
      const projects = (grant.projects ?? [{ id: SAMPLE_IDS.projectId, directory: SAMPLE_IDS.workspaceRoot }])
        .map((project) => ({
          id: project.id,
          name: project.id,
          directory: project.directory,
          workspaceRoots: [project.directory],
        }))
        .sort((a, b) => (a.id < b.id ? -1 : 1));
      return {
        alias: grant.alias,
        environmentId: grant.environmentId,
        label: grant.alias,
        destination: `t3://${grant.environmentId}`,
        projects,
        actions: [...(grant.actions ?? ACTION_IDS)].sort(),
        readProjectIds: projects.map((project) => project.id),
        ...(grant.projectWrites === undefined ? {} : { projectWrites: grant.projectWrites }),
      };
    })
    .sort((a, b) => (a.alias < b.alias ? -1 : 1));
  return parseLeaseScope({ scopeVersion: 2, runtimeMode: "full-access", environments });
}

export interface Harness {
  sim: Simulator;
  registry: EnvironmentRegistry;
  journal: Journal;
  /** The journal's private state directory (to reopen it as after a restart). */
  stateDir: string;
  lease: TestLease;
  /** Takes leases by id and hands the engine their facts, as the gate's relay does. */
  dispatcher: LeasedDispatcher;
  env(alias: string): SimEnvironment;
  /** Every write frame any socket of the registry sent, in order (resends would show here). */
  writeFrames: { tag: string; commandId: string }[];
  /** How many write frames carried this commandId. */
  framesFor(commandId: string): number;
  close(): Promise<void>;
}

export interface HarnessOptions {
  aliases: string[];
  clock?: "real" | "manual";
  verifyWorkspace?: WorkspaceVerifier;
  /** Aliases that play an older T3 build exactly (the simulator's `compat` profile). */
  compat?: Readonly<Record<string, "0.0.31">>;
  /** Per alias: the environment's allowed project folders (`projectRoots`, ADR 0074). */
  projectRoots?: Readonly<Record<string, readonly string[]>>;
  /** Environments start empty; this seeds each one before the registry connects. */
  seed?: (env: SimEnvironment) => void;
  /** How every environment plays the 0.0.46 age's open points (the simulator's age-0046.ts). */
  unknowns?: Partial<Unknowns0046>;
  /** The address the config names for an environment (e.g. a proxy in front of it); default its own. */
  reachedThrough?: (env: SimEnvironment) => Promise<string>;
}

/** The simulator has no file system of its own: its workspace paths are canonical as given. */
export const simulatorWorkspace: WorkspaceVerifier = async (_environment, path) => path;

export async function startHarness(options: HarnessOptions): Promise<Harness> {
  const sim = await startSimulator({
    environments: options.aliases.map((alias) => {
      const compat = options.compat?.[alias];
      return {
        alias,
        seed: "empty" as const,
        ...(compat === undefined ? {} : { compat }),
        ...(options.unknowns === undefined ? {} : { unknowns: options.unknowns }),
      };
    }),
    clock: options.clock ?? "real",
    strictCommands: true,
  });
  const tokens = await createTokenFiles();
  const stateDir = await mkdtemp(join(tmpdir(), "t3c-dispatch-"));
  const configs: EnvironmentConfig[] = [];
  for (const env of sim.environments) {
    configs.push({
      alias: env.alias,
      environmentId: env.environmentId,
      transport: { kind: "url", url: (await options.reachedThrough?.(env)) ?? env.url },
      tokenFile: await tokens.write(`${env.alias}-operate`, env.operateToken),
      ...(options.projectRoots?.[env.alias] === undefined
        ? {}
        : { projectRoots: options.projectRoots[env.alias] }),
    });
    env.model.addProject({
      id: SAMPLE_IDS.projectId,
      title: "fixture",
      workspaceRoot: SAMPLE_IDS.workspaceRoot,
    });
    options.seed?.(env);
  }
  const writeFrames: { tag: string; commandId: string }[] = [];
  const registry = new EnvironmentRegistry({
    environments: configs,
    requiredScopes: OPERATE_SCOPES,
    rpc: {
      onFrame: (direction, frame) => {
        const request = frame as { _tag?: string; tag?: string; payload?: { commandId?: unknown } };
        if (direction !== "sent" || request._tag !== "Request" || !WRITE_TAGS.has(String(request.tag)))
          return;
        writeFrames.push({ tag: String(request.tag), commandId: String(request.payload?.commandId) });
      },
    },
  });
  const journal = await openJournal({ stateDir });
  const lease = new TestLease(
    LEASE_ID,
    leaseScope(sim.environments.map((env) => ({ alias: env.alias, environmentId: env.environmentId }))),
  );
  lease.watch(journal);
  const dispatcher = createDispatcher({
    registry,
    journal,
    clock: systemClock,
    channel: CHANNEL,
    verifyWorkspace: options.verifyWorkspace ?? simulatorWorkspace,
  });
  return {
    sim,
    registry,
    journal,
    stateDir,
    lease,
    dispatcher: lease.wrap(dispatcher),
    env: (alias) => sim.environment(alias),
    writeFrames,
    framesFor: (commandId) => writeFrames.filter((frame) => frame.commandId === commandId).length,
    async close() {
      await registry.close();
      await journal.close();
      await sim.close();
      await tokens.remove();
      await rm(stateDir, { recursive: true, force: true });
    },
  };
}

/** The commands an environment accepted after `before` of them. */
/**
 * Registers the file's hooks: one harness for all its tests, closed after them; `ready` hands it to
 * the file's own variable. `reopenAndClearFaults` undoes, after each test, what an uncertain-write
 * test leaves behind: a closed lease and faults set on the environments.
 */
export function useHarness(
  options: HarnessOptions,
  ready: (harness: Harness) => void,
  after: { reopenAndClearFaults?: boolean } = {},
): void {
  let harness: Harness | undefined;
  beforeAll(async () => {
    harness = await startHarness(options);
    ready(harness);
  });
  if (after.reopenAndClearFaults === true) {
    afterEach(() => {
      if (harness === undefined) return;
      harness.lease.open = true;
      for (const env of harness.sim.environments) env.faults.clear();
    });
  }
  afterAll(async () => {
    await harness?.close();
  });
}

export function commandsSince(env: SimEnvironment, before: number) {
  return env.model.receivedCommands.slice(before);
}

/** The ConnectorError a dispatch rejects with; any other outcome fails the test. */
export async function dispatchFailure(promise: Promise<unknown>): Promise<ConnectorError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ConnectorError) return error;
    throw error;
  }
  throw new Error("expected the dispatch to fail");
}

/**
 * A delegated subagent's thread under a parent in `parentRuntimeMode`: only T3 creates these, so
 * the seeded child is given its lineage by hand. Answers the child's id.
 */
export function seedSubagentThread(
  env: SimEnvironment,
  parentRuntimeMode: string,
  creationSource: "provider" | "mcp",
): string {
  const parent = env.model.addThread({ projectId: SAMPLE_IDS.projectId, runtimeMode: parentRuntimeMode });
  const child = env.model.addThread({ projectId: SAMPLE_IDS.projectId, creationSource });
  const record = (
    env.model as unknown as { store: { threads: Map<string, { thread: object }> } }
  ).store.threads.get(child);
  if (!record) throw new Error("seeded thread missing");
  record.thread = {
    ...record.thread,
    lineage: { parentThreadId: parent, relationshipToParent: "subagent", rootThreadId: parent },
  };
  return child;
}
