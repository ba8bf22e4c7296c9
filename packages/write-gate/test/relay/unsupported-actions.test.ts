/**
 * A lease over a protocol-2 and a 0.0.31 environment: each grant holds only what its T3 version
 * can run, and an action the environment cannot run is refused by the gate before it is
 * journaled, with nothing sent (issue: older servers; ADR 0009).
 */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { EnvironmentRegistry, OPERATE_SCOPES } from "@t3-connector/core/environments";
import { ABSENT_COMMAND_TYPES_0031 } from "@t3-connector/t3-sim";
import { type GateHarness, startGateHarness } from "@t3-connector/test-support/gate-harness";
import { IDLE_THREAD, LEASED_PROJECT, startSimWorld } from "@t3-connector/test-support/sim-world";
import { ACTION_IDS, type LeaseScope } from "@t3-connector/write-engine/actions";
import { CommandSupportCache } from "@t3-connector/write-engine/capabilities";
import { JOURNAL_DIRECTORY } from "@t3-connector/write-engine/engine";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registryInventory } from "../../src/approval/index.js";
import { scopeFingerprint } from "../../src/approval/scope.js";
import { GateLeaseKeeper } from "../../src/lease/lease-keeper.js";

/** The catalogue actions whose command type 0.0.31 lacks (the action ids equal the types). */
const UNSUPPORTED_ON_0031: readonly string[] = ABSENT_COMMAND_TYPES_0031;

type Body = Record<string, unknown>;

/** Every file of the gate's journal, as text (the audit log does name the refusal, as not_recorded). */
async function journalText(stateDir: string): Promise<string> {
  const dir = join(stateDir, JOURNAL_DIRECTORY);
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  const files = entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
  return (await Promise.all(files.map((file) => readFile(file, "utf8")))).join("\n");
}
const body = (answer: { body: unknown }) => answer.body as Body;

let h: GateHarness;
let scope: LeaseScope;
let leaseId: string;
let unsupportedSeen: Awaited<ReturnType<ReturnType<typeof registryInventory>>>;

beforeAll(async () => {
  const world = await startSimWorld(["alpha", "beta"], { beta: { compat: "0.0.31" } });
  h = await startGateHarness({ world });
  const registry = new EnvironmentRegistry({
    environments: world.config.environments,
    requiredScopes: OPERATE_SCOPES,
  });
  try {
    unsupportedSeen = await registryInventory(registry, { commandSupport: new CommandSupportCache() })(
      undefined,
    );
  } finally {
    await registry.close();
  }
  const grants = unsupportedSeen.flatMap((outcome) => (outcome.ok ? [outcome.grant] : []));
  scope = {
    scopeVersion: 2,
    runtimeMode: "full-access",
    environments: grants.map((grant) => {
      const projects = grant.projects.filter((project) => project.id === LEASED_PROJECT);
      return { ...grant, projects, readProjectIds: projects.map((project) => project.id) };
    }),
  };
  if (!(h.gate.lease instanceof GateLeaseKeeper)) throw new Error("not a GateLeaseKeeper");
  leaseId = h.gate.lease.grant({
    scope,
    scopeFingerprint: scopeFingerprint(scope),
    credentialId: "test",
  }).leaseId;
});
afterAll(async () => {
  if (h) {
    await h.close();
    await h.world.close();
  }
});

const dispatch = (environment: string, operationId: string, action: string, input: Body) =>
  h.relay({ op: "dispatch", leaseId, environment, operationId, action, input });

describe("a lease over a protocol-2 and a 0.0.31 environment", () => {
  it("grants each environment only the actions its T3 version runs: 47 and 38 (35 commands, 3 project mutations)", () => {
    const byAlias = Object.fromEntries(scope.environments.map((grant) => [grant.alias, grant.actions]));
    expect(byAlias.alpha).toHaveLength(47);
    expect(byAlias.beta).toHaveLength(38);
    expect(byAlias.beta?.filter((action) => UNSUPPORTED_ON_0031.includes(action))).toEqual([]);
    expect([...ACTION_IDS].filter((action) => !byAlias.beta?.includes(action)).sort()).toEqual(
      UNSUPPORTED_ON_0031,
    );
  });

  it("names the actions the 0.0.31 environment cannot run, with its version", () => {
    const beta = unsupportedSeen.find((outcome) => outcome.ok && outcome.grant.alias === "beta");
    expect(beta?.ok && beta.unsupported).toMatchObject({ serverVersion: "0.0.31" });
    expect(beta?.ok ? [...(beta.unsupported?.actions ?? [])].sort() : []).toEqual(UNSUPPORTED_ON_0031);
    const alpha = unsupportedSeen.find((outcome) => outcome.ok && outcome.grant.alias === "alpha");
    expect(alpha?.ok && alpha.unsupported).toBeUndefined();
  });

  it("refuses an unsupported action before the journal, naming the environment and its T3 version", async () => {
    const beta = h.world.env("beta");
    const before = beta.model.receivedCommands.length;
    const refused = await dispatch("beta", "op-reorder", "thread.pin.reorder", {
      threadId: IDLE_THREAD,
      orderKey: "a0",
    });
    expect(body(refused).error).toBe("action_unsupported");
    expect(String(body(refused).message)).toContain("T3 0.0.31");
    expect(String(body(refused).message)).toContain("beta");
    expect(beta.model.receivedCommands.length).toBe(before);
    // Nothing was journaled: the same operationId is still free for another action.
    const pinned = await dispatch("beta", "op-reorder", "thread.pin", { threadId: IDLE_THREAD });
    expect(body(pinned)).toMatchObject({ state: "completed", replayed: false });
    expect(beta.model.receivedCommands.length).toBe(before + 1);
    expect(body(await h.relay({ op: "list_uncertain" })).records ?? []).toEqual([]);
  });

  it.each(UNSUPPORTED_ON_0031)(
    "refuses %s on the 0.0.31 environment before the journal, with nothing sent",
    async (action) => {
      const beta = h.world.env("beta");
      const before = beta.model.receivedCommands.length;
      const operationId = `op-each-${action}`;
      const refused = await dispatch("beta", operationId, action, { threadId: IDLE_THREAD });
      expect(body(refused).error).toBe("action_unsupported");
      expect(String(body(refused).message)).toContain("beta");
      expect(String(body(refused).message)).toContain("T3 0.0.31");
      expect(beta.model.receivedCommands.length).toBe(before);
      expect(
        h.gate.lease
          .writes(h.gate.lease.list()[0]?.leaseId ?? "")
          .some((write) => write.operationId === operationId),
      ).toBe(false);
      expect(body(await h.relay({ op: "list_uncertain" })).records ?? []).toEqual([]);
      expect(await journalText(h.world.stateDir)).not.toContain(operationId);
    },
  );

  it("sends the same action to the protocol-2 environment", async () => {
    const alpha = h.world.env("alpha");
    await dispatch("alpha", "op-pin-alpha", "thread.pin", { threadId: IDLE_THREAD });
    const reordered = await dispatch("alpha", "op-reorder-alpha", "thread.pin.reorder", {
      threadId: IDLE_THREAD,
      orderKey: "a0",
    });
    expect(body(reordered)).toMatchObject({ state: "completed" });
    expect(alpha.model.receivedCommands.at(-1)?.type).toBe("thread.pin.reorder");
  });
});

describe("a server whose probe listed nothing", () => {
  it("learns the list from its first refusal: the next request is refused before the journal", async () => {
    const world = await startSimWorld(["alpha"], { alpha: { compat: "0.0.31" } });
    // A probe that proves nothing (as a newer server might answer): every action is assumed.
    const assumeAll = new CommandSupportCache({
      probe: async (connection) => ({
        environmentId: connection.environmentId,
        serverVersion: connection.version,
        acceptedTypes: "all",
        source: "protocol",
      }),
    });
    const gate = await startGateHarness({ world, commandSupport: assumeAll });
    try {
      const leaseId = await gate.grantLease();
      const alpha = world.env("alpha");
      const before = alpha.model.receivedCommands.length;
      const reorder = (operationId: string) =>
        gate.relay({
          op: "dispatch",
          leaseId,
          environment: "alpha",
          operationId,
          action: "thread.pin.reorder",
          input: { threadId: IDLE_THREAD, orderKey: "a0" },
        });
      // Sent, refused by T3's decode defect: final in the journal, nothing applied.
      const first = body(await reorder("op-first"));
      expect(first).toMatchObject({ error: "action_unsupported", details: { state: "refused" } });
      // Now known: refused by the gate itself, nothing recorded.
      const second = body(await reorder("op-second"));
      expect(second.error).toBe("action_unsupported");
      expect(String(second.message)).toContain("T3 0.0.31");
      expect((second.details as Body | undefined)?.state).not.toBe("refused");
      expect(alpha.model.receivedCommands.length).toBe(before);
    } finally {
      await gate.close();
      await world.close();
    }
  });
});
