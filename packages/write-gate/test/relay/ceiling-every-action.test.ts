import { type SimEnvironment, startSimulator } from "@t3-connector/t3-sim";
import { aliasOf, seedForAction, WALK_PROJECT_ROOT } from "@t3-connector/test-support/action-states";
import { bindProjectWrite } from "@t3-connector/test-support/bound-project-writes";
import {
  commandTypesSince,
  countersOf,
  refusedInWalk,
  WALK_CEILING,
  workAboveCeiling,
} from "@t3-connector/test-support/ceiling-walk";
import { type GateHarness, leaseScopeFor, startGateHarness } from "@t3-connector/test-support/gate-harness";
import { type SimWorld, worldOf } from "@t3-connector/test-support/sim-world";
import { ACTION_IDS, type ActionId, SAMPLE_IDS } from "@t3-connector/write-engine/actions";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scopeFingerprint } from "../../src/approval/index.js";
import { GateLeaseKeeper } from "../../src/lease/lease-keeper.js";

type Body = Record<string, unknown>;

let h: GateHarness;
let leaseId: string;
const inputs = new Map<ActionId, Record<string, unknown>>();

/** One environment per action, seeded by the engine's every-action states (threads in full-access). */
async function actionWorld(): Promise<SimWorld> {
  const sim = await startSimulator({
    environments: ACTION_IDS.map((action) => ({ alias: aliasOf(action), seed: "empty" as const })),
    clock: "manual",
    strictCommands: true,
  });
  for (const action of ACTION_IDS) {
    const env = sim.environment(aliasOf(action));
    env.model.addProject({
      id: SAMPLE_IDS.projectId,
      title: "leased",
      workspaceRoot: SAMPLE_IDS.workspaceRoot,
    });
    inputs.set(action, await seedForAction(env, action));
  }
  return worldOf(sim, "t3c-ceiling-walk-", aliasOf(ACTION_IDS[0] as ActionId), [WALK_PROJECT_ROOT]);
}

beforeAll(async () => {
  const world = await actionWorld();
  h = await startGateHarness({ world });
  if (!(h.gate.lease instanceof GateLeaseKeeper))
    throw new Error("the gate's lease is not a GateLeaseKeeper");
  // The person's default: agents the lease makes run ask in T3 before every command.
  const create = envOf("project.create");
  const scope = bindProjectWrite(
    { ...(await leaseScopeFor(world)), runtimeMode: WALK_CEILING },
    create.environmentId,
    "project.create",
    inputs.get("project.create"),
  );
  leaseId = h.gate.lease.grant({
    scope,
    scopeFingerprint: scopeFingerprint(scope),
    credentialId: "test",
  }).leaseId;
}, 120_000);

afterAll(async () => {
  await h?.close();
  await h?.world.close();
});

function dispatch(action: ActionId, input: unknown, operationId = `op-walk-${action}`): Body {
  const env = aliasOf(action);
  const clientRequestId = (input as { clientRequestId?: unknown }).clientRequestId;
  return {
    op: "dispatch",
    action,
    leaseId,
    environment: env,
    operationId: typeof clientRequestId === "string" ? clientRequestId : operationId,
    input,
  };
}

function envOf(action: ActionId): SimEnvironment {
  return h.world.env(aliasOf(action));
}

describe("every catalogue action against a full-access thread under an approval-required lease", () => {
  it.each([...ACTION_IDS])(
    "%s: refused with nothing sent, or sent with nothing run above the ceiling",
    async (action) => {
      const env = envOf(action);
      const before = countersOf(env);
      const answer = await h.relay(dispatch(action, inputs.get(action)));
      if (refusedInWalk(action)) {
        expect(answer.body, action).toMatchObject({ error: "runtime_mode_above_lease" });
        const body = answer.body as { message: string; details?: Body };
        expect(body.message).toMatch(
          /which runs in full-access, above this lease's ceiling approval-required/,
        );
        expect(body.message).toContain("Nothing was sent.");
        expect(body.details).toMatchObject({ recorded: false, stage: "scope" });
        expect(commandTypesSince(env, before)).toEqual([]);
      } else {
        expect(answer.body, JSON.stringify(answer.body)).toMatchObject({ state: "completed", action });
        expect(commandTypesSince(env, before)).toHaveLength(1);
      }
      expect(workAboveCeiling(env, before), action).toEqual([]);
    },
  );
});
