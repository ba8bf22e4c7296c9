import type { GateHarness } from "@t3-connector/test-support/gate-harness";
import { IDLE_THREAD } from "@t3-connector/test-support/sim-world";
import { describe, expect, it } from "vitest";
import { type BridgeSession, textOf } from "../support/bridge-client.js";
import { useBridgeOverRealGate } from "../support/bridge-over-real-gate.js";

let h: GateHarness;
let bridge: BridgeSession;

useBridgeOverRealGate((harness, session) => {
  h = harness;
  bridge = session;
});

describe("an uncertain write", () => {
  const lose = async (operationId: string) => {
    const alpha = h.world.env("alpha");
    const write = (leaseId: string) =>
      bridge.call("t3_escrever_thread_pin", {
        leaseId,
        environment: "alpha",
        operationId,
        input: { threadId: IDLE_THREAD },
      });
    const before = alpha.model.receivedCommands.length;
    alpha.faults.set({ dropSocketAfterDispatch: true });
    const lost = await write(await h.grantLease());
    alpha.faults.set({ dropSocketAfterDispatch: undefined });
    expect(lost.isError).toBe(true);
    expect(textOf(lost)).toMatch(/^reconciliation_required: .*same operationId.*t3_reconciliar_escrita/);
    expect(alpha.model.receivedCommands.length).toBe(before + 1);
    // The gate closed the lease; the client asks again and the human approves a new one.
    expect(textOf(await bridge.call("t3_pedir_aprovacao", {}))).toContain('"authorized":false');
    return { write, leaseId: await h.grantLease(), sent: before + 1 };
  };

  it("says reconciliation_required; the same call repeated settles it from T3 without sending it again", async () => {
    const { write, leaseId, sent } = await lose("bridge-lost-1");
    const repeat = await write(leaseId);
    expect(repeat.isError, textOf(repeat)).toBeFalsy();
    expect(repeat.structuredContent).toMatchObject({ state: "completed", replayed: true, reconciled: true });
    const replay = await write(leaseId);
    expect(replay.structuredContent).toMatchObject({ state: "completed", replayed: true });
    expect(h.world.env("alpha").model.receivedCommands).toHaveLength(sent);
  });

  it("t3_reconciliar_escrita settles it from T3 and says so", async () => {
    const { write, leaseId, sent } = await lose("bridge-lost-2");
    const settled = await bridge.call("t3_reconciliar_escrita", {
      leaseId,
      environment: "alpha",
      operationId: "bridge-lost-2",
    });
    expect(settled.isError, textOf(settled)).toBeFalsy();
    expect(settled.structuredContent).toMatchObject({
      state: "completed",
      settled: true,
      action: "thread.pin",
      observation: { found: true },
      resend: null,
    });
    const replay = await write(leaseId);
    expect(replay.structuredContent).toMatchObject({ state: "completed", replayed: true });
    expect(h.world.env("alpha").model.receivedCommands).toHaveLength(sent);
  });
});
