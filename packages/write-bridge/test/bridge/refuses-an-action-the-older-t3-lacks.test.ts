/**
 * Through the bridge, over a protocol-2 and a 0.0.31 environment behind the real gate: an action
 * the 0.0.31 environment's T3 lacks reaches the client as the gate's own `action_unsupported`,
 * naming the environment and its T3 version, with nothing sent; the protocol-2 one runs it
 * (ADR 0009).
 */

import type { GateHarness } from "@t3-connector/test-support/gate-harness";
import { IDLE_THREAD, startSimWorld } from "@t3-connector/test-support/sim-world";
import { beforeAll, describe, expect, it } from "vitest";
import { type BridgeSession, textOf } from "../support/bridge-client.js";
import { useBridgeOverRealGate } from "../support/bridge-over-real-gate.js";

let h: GateHarness;
let bridge: BridgeSession;
let leaseId: string;

useBridgeOverRealGate(
  (harness, session) => {
    h = harness;
    bridge = session;
  },
  () => startSimWorld(["alpha", "beta"], { beta: { compat: "0.0.31" } }),
);
beforeAll(async () => {
  leaseId = await h.grantLease();
});

describe("an action the environment's T3 version lacks, through the bridge", () => {
  it("answers the gate's action_unsupported unchanged, naming the environment and its version, sending nothing", async () => {
    const beta = h.world.env("beta");
    const before = beta.model.receivedCommands.length;
    const result = await bridge.call("t3_escrever_thread_pin_reorder", {
      leaseId,
      environment: "beta",
      operationId: "bridge-reorder-beta",
      input: { threadId: IDLE_THREAD, orderKey: "a0" },
    });
    expect(result.isError).toBe(true);
    const text = textOf(result);
    expect(text).toMatch(/^action_unsupported: /);
    expect(text).toContain("beta");
    expect(text).toContain("T3 0.0.31");
    expect(beta.model.receivedCommands.length).toBe(before);
    const uncertain = await bridge.call("t3_reconciliar_escrita", {
      leaseId,
      environment: "beta",
      operationId: "bridge-reorder-beta",
    });
    // Nothing was journaled under that operationId: there is no write to reconcile.
    expect(textOf(uncertain)).toMatch(/^not_found: /);
  });

  it("runs the same action on the protocol-2 environment", async () => {
    const alpha = h.world.env("alpha");
    await bridge.call("t3_escrever_thread_pin", {
      leaseId,
      environment: "alpha",
      operationId: "bridge-pin-alpha",
      input: { threadId: IDLE_THREAD },
    });
    const result = await bridge.call("t3_escrever_thread_pin_reorder", {
      leaseId,
      environment: "alpha",
      operationId: "bridge-reorder-alpha",
      input: { threadId: IDLE_THREAD, orderKey: "a0" },
    });
    expect(result.isError).toBeFalsy();
    expect(alpha.model.receivedCommands.at(-1)?.type).toBe("thread.pin.reorder");
  });
});
