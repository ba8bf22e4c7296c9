/**
 * Issue 44 item 4: the bridge's leased reads are the read server's own tools over another data
 * source. On one simulated world, a read server whose ACL is the lease's projects and the bridge
 * under that lease answer the five shared reads with the same body (the environment's server
 * label aside, which the gate does not read; cursors are signed per process). The thread outside
 * the lease is in neither answer. The world's rows name no secret request (upstream's reading,
 * ADR 0069), so `t3_atencao` finds the thread waiting on one only by reading the running threads,
 * which both servers do with the same code. Everything runs over real sockets.
 */
import { readToolDefinitions } from "@t3-connector/read-server";
import { type GateHarness, startGateHarness } from "@t3-connector/test-support/gate-harness";
import { type SimReadSetup, startSimRead } from "@t3-connector/test-support/sim-context";
import {
  IDLE_THREAD,
  LEASED_PROJECT,
  OUTSIDE_THREAD,
  startSimWorld,
} from "@t3-connector/test-support/sim-world";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Body, type BridgeSession, connectBridge, structured } from "../support/bridge-client.js";

/** The answer without what may differ by server: the label `name` and the process's cursors. */
function comparable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(comparable);
  if (value === null || typeof value !== "object") return value;
  const entries = Object.entries(value as Body)
    .filter(([key]) => key !== "name" && key !== "nextCursor")
    .map(([key, inner]) => [key, comparable(inner)]);
  return Object.fromEntries(entries);
}

describe("the bridge answers its leased reads as the read server does", () => {
  let h: GateHarness;
  let leaseId = "";
  let bridge: BridgeSession;
  let read: SimReadSetup;
  let secretThread = "";

  beforeAll(async () => {
    // Upstream's rows carry no `pendingSecretRequest`: only the thread's own items name it.
    const world = await startSimWorld(["alpha"], { alpha: { unknowns: { secretRequests: "upstream" } } });
    const alpha = world.env("alpha");
    secretThread = alpha.model.addThread({
      projectId: LEASED_PROJECT,
      title: "Needs a key",
      state: "running",
    });
    alpha.model.requestSecret(secretThread, { name: "GITHUB_TOKEN" });
    h = await startGateHarness({ world });
    bridge = await connectBridge({ port: h.gate.port, stateDir: h.world.stateDir });
    read = await startSimRead({
      simulator: { running: world.sim },
      definitions: readToolDefinitions,
      allowedProjects: { alpha: [LEASED_PROJECT] },
    });
    leaseId = await h.grantLease();
  });
  afterAll(async () => {
    await read?.close();
    await bridge?.close();
    await h?.close();
    await h?.world.close();
  });

  const CALLS: Array<[string, Body]> = [
    ["t3_projetos", {}],
    ["t3_threads", { includeNoRun: true }],
    ["t3_threads", { includeNoRun: true, limit: 1 }],
    ["t3_threads", { search: "a", includeNoRun: true }],
    ["t3_threads", { includeArchived: true, includeNoRun: true }],
    ["t3_atencao", {}],
    ["t3_thread", { threadId: IDLE_THREAD }],
    ["t3_mensagens", { threadId: IDLE_THREAD, limit: 3 }],
  ];

  it.each(CALLS)("%s %j: the same answer from both servers", async (tool, input) => {
    const fromRead = await read.call(tool, { environment: "alpha", ...input });
    const fromBridge = structured(await bridge.call(tool, { leaseId, environment: "alpha", ...input }));
    expect(comparable(fromBridge)).toEqual(comparable(fromRead));
    expect(JSON.stringify(fromBridge)).not.toContain(OUTSIDE_THREAD);
  });

  it("lists the thread waiting on a secret its row does not name, on both servers", async () => {
    for (const answer of [
      await read.call("t3_atencao", { environment: "alpha" }),
      structured(await bridge.call("t3_atencao", { leaseId, environment: "alpha" })),
    ]) {
      const listed = (answer.threads as Body[]).find((thread) => thread.threadId === secretThread);
      expect(listed).toMatchObject({ state: "needs_intervention", stateSource: "secret_request" });
      expect(String(listed?.reason)).toContain("GITHUB_TOKEN");
    }
  });

  it("pages the bridge's listing with its own cursor, as the read server pages", async () => {
    const first = structured(
      await bridge.call("t3_threads", { leaseId, environment: "alpha", includeNoRun: true, limit: 1 }),
    );
    expect(first).toMatchObject({ returned: 1, truncated: true });
    const second = structured(
      await bridge.call("t3_threads", {
        leaseId,
        environment: "alpha",
        includeNoRun: true,
        limit: 1,
        cursor: first.nextCursor,
      }),
    );
    const ids = [...(first.threads as Body[]), ...(second.threads as Body[])].map((row) => row.threadId);
    expect(new Set(ids).size).toBe(2);
  });
});
