/**
 * A write engine over a real simulator: operate tokens in private token files, a registry built
 * with OPERATE_SCOPES, a journal in a private temp state directory, and a lease built from a real
 * lease scope (scopeVerdict) whose only test-specific part is that a test can close it.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConnectorError, systemClock } from "@t3-connector/core";
import type { EnvironmentConfig } from "@t3-connector/core/config";
import { EnvironmentRegistry, OPERATE_SCOPES } from "@t3-connector/core/environments";
import { type SimEnvironment, type Simulator, startSimulator } from "@t3-connector/t3-sim";
import { createTokenFiles } from "@t3-connector/test-support/token-files";
import { afterAll, afterEach, beforeAll } from "vitest";
import {
  ACTION_IDS,
  type ActionId,
  type LeaseScope,
  parseLeaseScope,
  SAMPLE_IDS,
} from "../../../src/actions/index.js";
import {
  createDispatcher,
  type Dispatcher,
  type LeaseCheck,
  type LeaseRequest,
  type LeaseStage,
  type LeaseVerdict,
  scopeVerdict,
  type UncertainSend,
  type WorkspaceVerifier,
} from "../../../src/dispatch/index.js";
import { type Journal, openJournal } from "../../../src/journal/index.js";

const WRITE_TAGS = new Set(["orchestration.dispatchCommand", "orchestration.launchThread"]);

export const LEASE_ID = "lease-test-1";
export const CHANNEL = "canal:test-org|securetunnel:tunnel-1";

/** A lease over a real scope; `closeAt` closes it when the dispatcher reaches that stage. */
export class TestLease implements LeaseCheck {
  open = true;
  closeAt: LeaseStage | undefined;
  readonly calls: LeaseRequest[] = [];
  readonly uncertainSends: UncertainSend[] = [];

  constructor(
    readonly leaseId: string,
    public scope: LeaseScope,
  ) {}

  check(request: LeaseRequest): LeaseVerdict {
    this.calls.push(request);
    if (this.closeAt === request.stage) this.open = false;
    if (!this.open || request.leaseId !== this.leaseId) {
      return { ok: false, code: "lease_closed", message: "the lease is closed" };
    }
    return scopeVerdict(this.scope, request);
  }

  onUncertainSend(event: UncertainSend): void {
    this.uncertainSends.push(event);
    this.open = false;
  }
}

export interface GrantSpec {
  alias: string;
  environmentId: string;
  projects?: { id: string; directory: string }[];
  actions?: readonly ActionId[];
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
  dispatcher: Dispatcher;
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
  /** Environments start empty; this seeds each one before the registry connects. */
  seed?: (env: SimEnvironment) => void;
}

/** The simulator has no file system of its own: its workspace paths are canonical as given. */
export const simulatorWorkspace: WorkspaceVerifier = async (_environment, path) => path;

export async function startHarness(options: HarnessOptions): Promise<Harness> {
  const sim = await startSimulator({
    environments: options.aliases.map((alias) => {
      const compat = options.compat?.[alias];
      return { alias, seed: "empty" as const, ...(compat === undefined ? {} : { compat }) };
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
      transport: { kind: "url", url: env.url },
      tokenFile: await tokens.write(`${env.alias}-operate`, env.operateToken),
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
  const dispatcher = createDispatcher({
    registry,
    journal,
    clock: systemClock,
    channel: CHANNEL,
    lease,
    verifyWorkspace: options.verifyWorkspace ?? simulatorWorkspace,
  });
  return {
    sim,
    registry,
    journal,
    stateDir,
    lease,
    dispatcher,
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
