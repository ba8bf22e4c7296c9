import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type GateHarness, startGateHarness } from "../../../write-gate/test/support/gate-harness.js";
import { IDLE_THREAD } from "../../../write-gate/test/support/sim-world.js";
import { type BridgeSession, connectBridge, textOf } from "../support/bridge-client.js";

let h: GateHarness;
let bridge: BridgeSession;

beforeAll(async () => {
  h = await startGateHarness();
  bridge = await connectBridge({ port: h.gate.port, stateDir: h.world.stateDir });
});
afterAll(async () => {
  await bridge?.close();
  await h?.close();
});

describe("an uncertain write", () => {
  it("says reconciliation_required, is never resent, and t3_reconciliar_escrita settles it from T3", async () => {
    const alpha = h.world.env("alpha");
    const write = (leaseId: string) =>
      bridge.call("t3_escrever_thread_pin", {
        leaseId,
        environment: "alpha",
        operationId: "bridge-lost-1",
        input: { threadId: IDLE_THREAD },
      });
    alpha.faults.set({ dropSocketAfterDispatch: true });
    const lost = await write(await h.grantLease());
    expect(lost.isError).toBe(true);
    expect(textOf(lost)).toMatch(/^reconciliation_required: .*do not retry.*t3_reconciliar_escrita/);
    expect(alpha.model.receivedCommands).toHaveLength(1);
    alpha.faults.set({ dropSocketAfterDispatch: undefined });

    // The gate closed the lease; the client asks again and the human approves a new one.
    expect(textOf(await bridge.call("t3_pedir_aprovacao", {}))).toContain('"authorized":false');
    const leaseId = await h.grantLease();
    expect(textOf(await write(leaseId))).toMatch(/^reconciliation_required: /);
    expect(alpha.model.receivedCommands).toHaveLength(1);

    const settled = await bridge.call("t3_reconciliar_escrita", {
      leaseId,
      environment: "alpha",
      operationId: "bridge-lost-1",
    });
    expect(settled.isError, textOf(settled)).toBeFalsy();
    expect(settled.structuredContent).toMatchObject({
      state: "completed",
      settled: true,
      action: "thread.pin",
    });
    const replay = await write(leaseId);
    expect(replay.structuredContent).toMatchObject({ state: "completed", replayed: true });
    expect(alpha.model.receivedCommands).toHaveLength(1);
  });
});
