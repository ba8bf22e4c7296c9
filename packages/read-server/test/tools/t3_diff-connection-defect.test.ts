/**
 * A T3 that lacks the diff and version-control RPCs and answers an unknown method as the real
 * 0.0.28 does (fixtures/t3-0.0.28/11 and 14): a top-level `Defect "Unknown request tag: <tag>"`
 * with no request id, the socket kept open. `t3_diff` and `t3_worktree` still answer the product's
 * one "this T3 lacks it" error naming the RPC, and the same connection goes on serving reads.
 */
import { T3RpcClient } from "@t3-connector/core/t3";
import { type SimReadSetup, startSimRead } from "@t3-connector/test-support/sim-context";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { t3DiffTool } from "../../src/tools/t3_diff.js";
import { t3ThreadTool } from "../../src/tools/t3_thread.js";
import { t3WorktreeTool } from "../../src/tools/t3_worktree.js";

const PAST = Date.now() - 30 * 60_000;
let setup: SimReadSetup;

beforeAll(async () => {
  setup = await startSimRead({
    simulator: {
      environments: [
        {
          alias: "v028",
          environmentId: "env-v028",
          seed: "empty",
          unknownTagAnswer: "connection-defect",
          lacksMethods: [
            "orchestration.getTurnDiff",
            "orchestration.getFullThreadDiff",
            "vcs.refreshStatus",
            "vcs.listRefs",
          ],
        },
      ],
    },
    definitions: [t3DiffTool, t3WorktreeTool, t3ThreadTool],
    allowedProjects: { v028: ["p-old"] },
  });
  const model = setup.sim.environment("v028").model;
  model.addProject({ id: "p-old", title: "old", workspaceRoot: "/home/sim/code/old" });
  model.addThread({
    id: "t-old",
    projectId: "p-old",
    title: "Edited on an old T3",
    state: "completed",
    message: "[[sim:edit=src/app.ts|export const app = 2;]]",
    at: PAST,
  });
});
afterAll(async () => {
  await setup?.close();
});

describe("a T3 that answers an unknown method with a connection defect", () => {
  it("answers t3_diff with the typed 'this T3 lacks it' error naming the RPC, for a run and the whole thread", async () => {
    const thread = await setup.call("t3_thread", { environment: "v028", threadId: "t-old" });
    // The refusal is about the RPC, not an empty thread: T3 recorded a checkpoint to diff.
    expect((thread.changes as { files?: number } | null)?.files).toBe(1);
    expect(await setup.callError("t3_diff", { environment: "v028", threadId: "t-old" })).toMatch(
      /^action_unsupported: this T3 lacks orchestration\.getTurnDiff/,
    );
    expect(
      await setup.callError("t3_diff", { environment: "v028", threadId: "t-old", scope: "thread" }),
    ).toMatch(/^action_unsupported: this T3 lacks orchestration\.(getFullThreadDiff|getTurnDiff)/);
    expect(await setup.callError("t3_worktree", { environment: "v028", threadId: "t-old" })).toMatch(
      /^action_unsupported: this T3 lacks vcs\.refreshStatus/,
    );
  });

  it("keeps the socket: only the lacking call fails, and the same connection answers the next one", async () => {
    const env = setup.sim.environment("v028");
    const client = await T3RpcClient.connect({ baseUrl: env.url, token: env.readToken });
    try {
      const tickets = () => env.httpRequests.filter((r) => r.path === "/api/auth/websocket-ticket").length;
      const before = tickets();
      const refused = await client.getTurnDiff({ threadId: "t-old", fromTurnCount: 0, toTurnCount: 1 }).then(
        () => null,
        (error: unknown) => error,
      );
      expect(refused).toMatchObject({
        code: "action_unsupported",
        details: { missing: "orchestration.getTurnDiff" },
      });
      expect(await client.getConfig()).toBeTruthy();
      expect(tickets()).toBe(before);
    } finally {
      client.close();
    }
  });
});
