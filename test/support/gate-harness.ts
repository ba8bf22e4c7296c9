/**
 * An in-process gate (startGate with the real human side: page, passkeys, desk, GateLeaseKeeper)
 * over a simulator world, and a way to open a lease WITHOUT a passkey ceremony: tests of the
 * machine side call the keeper's `grant` directly with a scope built from the live inventory and
 * narrowed to one project. The browser test of the other part covers the passkey ceremony itself.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { EnvironmentRegistry, OPERATE_SCOPES } from "@t3-connector/core/environments";
import type { LeaseScope } from "@t3-connector/write-engine/actions";
import { RELAY_HEADER } from "@t3-connector/write-engine/relay-contract";
import { registryInventory, scopeFingerprint } from "../../packages/write-gate/src/approval/index.js";
import { GateLeaseKeeper } from "../../packages/write-gate/src/lease/lease-keeper.js";
import {
  type RunningGate,
  type StartGateOptions,
  startGate,
} from "../../packages/write-gate/src/process/index.js";
import { CAPABILITY_FILE } from "../../packages/write-gate/src/relay/index.js";
import { type HttpAnswer, postJson } from "./gate-http.js";
import { LEASED_PROJECT, type SimWorld, startSimWorld } from "./sim-world.js";

/** The simulator has no file system: its workspace paths are canonical as given. */
export const simulatorWorkspace = async (_target: unknown, path: string) => path;

export interface GateHarness {
  world: SimWorld;
  gate: RunningGate;
  logs: string[];
  capability(): Promise<string>;
  /** POST /relay with this boot's capability (or the one given; `null` sends none). */
  relay(body: unknown, capability?: string | null): Promise<HttpAnswer>;
  /** Closes any open lease, opens one over the environments (default all) narrowed to LEASED_PROJECT; returns its id. */
  /** `bind`: what the approval bound besides the scope (a project write, ADR 0074). */
  grantLease(options?: {
    environments?: readonly string[];
    bind?: (scope: LeaseScope) => LeaseScope;
  }): Promise<string>;
  close(): Promise<void>;
}

export async function leaseScopeFor(world: SimWorld, environments?: readonly string[]): Promise<LeaseScope> {
  const registry = new EnvironmentRegistry({
    environments: world.config.environments,
    requiredScopes: OPERATE_SCOPES,
  });
  try {
    const outcomes = await registryInventory(registry)(environments);
    const grants = outcomes.flatMap((outcome) => (outcome.ok ? [outcome.grant] : []));
    return {
      scopeVersion: 2,
      runtimeMode: "full-access",
      environments: grants.map((grant) => {
        const projects = grant.projects.filter((project) => project.id === LEASED_PROJECT);
        return { ...grant, projects, readProjectIds: projects.map((project) => project.id) };
      }),
    };
  } finally {
    await registry.close();
  }
}

export async function startGateHarness(
  options: Partial<Omit<StartGateOptions, "config">> & { world?: SimWorld } = {},
): Promise<GateHarness> {
  const world = options.world ?? (await startSimWorld());
  const logs: string[] = [];
  const gate = await startGate({
    config: world.config,
    log: (line) => logs.push(line),
    handleSignals: false,
    verifyWorkspace: simulatorWorkspace,
    ...options,
  });
  const capability = () => readFile(join(world.stateDir, CAPABILITY_FILE), "utf8");
  return {
    world,
    gate,
    logs,
    capability,
    async relay(body, given) {
      const value = given === undefined ? await capability() : given;
      return postJson(gate.port, "/relay", body, value === null ? {} : { [RELAY_HEADER]: value });
    },
    async grantLease(grantOptions = {}) {
      if (!(gate.lease instanceof GateLeaseKeeper))
        throw new Error("the gate's lease is not a GateLeaseKeeper");
      const listed = await leaseScopeFor(world, grantOptions.environments);
      const scope = grantOptions.bind?.(listed) ?? listed;
      gate.lease.closeAll("test_regrant");
      return gate.lease.grant({
        scope,
        scopeFingerprint: scopeFingerprint(scope),
        credentialId: "test-credential",
      }).leaseId;
    },
    async close() {
      await gate.close();
      if (options.world === undefined) await world.close();
    },
  };
}
