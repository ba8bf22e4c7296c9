import { type GateHarness, startGateHarness } from "@t3-connector/test-support/gate-harness";
import { IDLE_THREAD } from "@t3-connector/test-support/sim-world";
import { SAMPLE_IDS } from "@t3-connector/write-engine/actions";
import { afterEach, describe, expect, it } from "vitest";

let h: GateHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

type Body = Record<string, unknown>;

describe("relay: uncertain sends, T3 refusals, environments left out", () => {
  it("answers reconciliation_required when the socket is lost after the send, closes the lease; a repeat settles it", async () => {
    h = await startGateHarness();
    const leaseId = await h.grantLease();
    const alpha = h.world.env("alpha");
    alpha.faults.set({ dropSocketAfterDispatch: true });
    const request = {
      op: "dispatch",
      leaseId,
      environment: "alpha",
      operationId: "op-lost",
      action: "thread.pin",
      input: { threadId: IDLE_THREAD },
    };
    const lost = await h.relay(request);
    expect(lost.status).toBe(403);
    expect(lost.body).toMatchObject({ error: "reconciliation_required", details: { state: "uncertain" } });
    expect(h.gate.lease.list()).toEqual([]);
    expect(alpha.model.receivedCommands).toHaveLength(1);
    alpha.faults.set({ dropSocketAfterDispatch: undefined });
    // A new lease, the same operationId: the repeat settles it by reading T3, sending nothing.
    const again = await h.relay({ ...request, leaseId: await h.grantLease() });
    expect(again.body).toMatchObject({ state: "completed", replayed: true, reconciled: true });
    expect(alpha.model.receivedCommands).toHaveLength(1);
    const settled = await h.relay({ op: "reconcile", environment: "alpha", operationId: "op-lost" });
    expect(settled.body).toMatchObject({ state: "completed", settled: false, resend: null });
  });

  it("passes T3's own refusal through with its tag, records it refused, and keeps the lease", async () => {
    h = await startGateHarness();
    const leaseId = await h.grantLease();
    const steerIdle = {
      op: "dispatch",
      leaseId,
      environment: "alpha",
      operationId: "op-t3-refuses",
      action: "thread.send",
      input: {
        threadId: IDLE_THREAD,
        text: "Steer an idle thread.",
        clientRequestId: "op-t3-refuses",
        delivery: "steer_active",
        targetRunId: SAMPLE_IDS.runId,
      },
    };
    const answer = await h.relay(steerIdle);
    expect(answer.status).toBe(403);
    expect(answer.body).toMatchObject({
      error: "t3_refused",
      t3: { tag: "OrchestrationV2DispatchCommandError" },
      details: { state: "refused", sent: true },
    });
    expect(h.gate.lease.list()[0]?.leaseId).toBe(leaseId);
    expect(h.gate.lease.writes(h.gate.lease.list()[0]?.leaseId ?? "")).toEqual([
      expect.objectContaining({
        operationId: "op-t3-refuses",
        state: "refused",
        code: "t3_refused/OrchestrationV2DispatchCommandError",
      }),
    ]);
    const replay = await h.relay(steerIdle);
    expect(replay.body).toMatchObject({ error: "t3_refused", details: { replayed: true } });
  });

  it("lists an environment that cannot be inventoried as left out, with the reason", async () => {
    h = await startGateHarness();
    await h.world.env("beta").stop();
    const answer = await h.relay({ op: "request_approval" });
    expect(answer.status).toBe(200);
    const body = answer.body as Body;
    expect((body.covered as Body[]).map((grant) => grant.alias)).toEqual(["alpha"]);
    expect(body.leftOut).toEqual([
      expect.objectContaining({
        alias: "beta",
        environmentId: h.world.env("beta").environmentId,
        reason: expect.any(String),
      }),
    ]);
  });
});
