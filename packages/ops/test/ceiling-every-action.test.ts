/**
 * The same walk as the gate's (ADR 0037), through `t3-connector-ops <env> act` with
 * `--max-runtime-mode approval-required`: every catalogue action against threads T3 runs in
 * full-access, one simulated environment per action. Each action that could make an agent run
 * above the ceiling exits refused (67) with runtime_mode_above_lease naming the thread's mode and
 * the ceiling, and nothing is sent; each one that goes through makes nothing run above the
 * ceiling. Counted at the simulator. A launch that names no mode runs at that ceiling and says so.
 */

import { EXIT_CODES } from "@t3-connector/core/cli-support";
import { aliasOf, seedForAction, WALK_PROJECT_ROOT } from "@t3-connector/test-support/action-states";
import {
  commandTypesSince,
  countersOf,
  refusedInWalk,
  workAboveCeiling,
} from "@t3-connector/test-support/ceiling-walk";
import { ACTION_IDS, type ActionId, SAMPLE_IDS, SAMPLE_INPUTS } from "@t3-connector/write-engine/actions";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runOps } from "./support/cli-run.js";
import { type SimOps, startSimOps } from "./support/sim-ops.js";

let setup: SimOps;
const inputs = new Map<ActionId, Record<string, unknown>>();

beforeAll(async () => {
  setup = await startSimOps(
    {
      environments: ACTION_IDS.map((action) => ({ alias: aliasOf(action), seed: "empty" as const })),
      clock: "manual",
      strictCommands: true,
    },
    { projectRoots: [WALK_PROJECT_ROOT] },
  );
  for (const action of ACTION_IDS) {
    const env = setup.env(aliasOf(action));
    env.model.addProject({
      id: SAMPLE_IDS.projectId,
      title: "fixture",
      workspaceRoot: SAMPLE_IDS.workspaceRoot,
    });
    inputs.set(action, await seedForAction(env, action));
  }
}, 120_000);

afterAll(async () => {
  await setup?.close();
});

function act(
  action: ActionId,
  input: unknown,
  operationId = `walk-${action}`,
  ceiling = ["--max-runtime-mode", "approval-required"],
) {
  const clientRequestId = (input as { clientRequestId?: unknown }).clientRequestId;
  return runOps(
    [
      aliasOf(action),
      "act",
      action,
      "--operation-id",
      typeof clientRequestId === "string" ? clientRequestId : operationId,
      "--input",
      JSON.stringify(input),
      ...ceiling,
    ],
    { env: { T3_CONNECTOR_OPS_CONFIG: setup.configPath } },
  );
}

describe("every catalogue action through ops --max-runtime-mode approval-required, on full-access threads", () => {
  it.each([...ACTION_IDS])(
    "%s: refused with nothing sent, or sent with nothing run above the ceiling",
    async (action) => {
      const env = setup.env(aliasOf(action));
      const before = countersOf(env);
      const run = await act(action, inputs.get(action));
      if (refusedInWalk(action)) {
        expect(run.code, run.stderr).toBe(EXIT_CODES.refused);
        expect(run.stderr.split("\n")[0]).toMatch(
          /^t3-connector-ops: runtime_mode_above_lease: .* which runs in full-access, above this ops's ceiling approval-required: .*Nothing was sent\.$/,
        );
        expect(commandTypesSince(env, before)).toEqual([]);
      } else {
        expect(run.code, run.stderr).toBe(0);
        expect(commandTypesSince(env, before)).toHaveLength(1);
      }
      expect(workAboveCeiling(env, before), action).toEqual([]);
    },
  );

  it("runs a launch that names no mode at --max-runtime-mode, and its result says so", async () => {
    const env = setup.env(aliasOf("thread.launch"));
    const before = countersOf(env);
    const { runtimeMode: _omitted, ...input } = SAMPLE_INPUTS["thread.launch"];
    const run = await act("thread.launch", input, "walk-launch-unnamed");
    expect(run.code, run.stderr).toBe(0);
    const result = run.json() as { runtimeMode?: string; result: { threadId: string } };
    expect(result.runtimeMode).toBe("approval-required");
    expect(env.model.getThread(result.result.threadId)?.shell.runtimeMode).toBe("approval-required");
    expect(env.model.agentWork.slice(before.work)).toEqual([
      expect.objectContaining({ kind: "turn_started", runtimeMode: "approval-required" }),
    ]);
  });

  it("keeps T3's own default for a launch that names no mode when ops has no ceiling", async () => {
    const { runtimeMode: _omitted, ...input } = SAMPLE_INPUTS["thread.launch"];
    const run = await act("thread.launch", input, "walk-launch-no-ceiling", []);
    expect(run.code, run.stderr).toBe(0);
    expect((run.json() as { runtimeMode?: string }).runtimeMode).toBe("full-access");
  });
});
