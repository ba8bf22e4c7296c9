/**
 * Issue 15, done-when 3: current T3 holds back a shell row whose only change is `updatedAt` for up
 * to 5 s (upstream `ShellStream.ts`, `skipUnchangedThreadShells`), so a no-op command may produce no
 * shell item at all. A write must not wait for one: with the simulator's clock stopped (a held-back
 * row would never be released), a no-op unpin through the bridge still completes.
 */

import type { GateHarness } from "@t3-connector/test-support/gate-harness";
import { IDLE_THREAD, startSimWorld } from "@t3-connector/test-support/sim-world";
import { describe, expect, it } from "vitest";
import type { BridgeSession } from "../support/bridge-client.js";
import { useBridgeOverRealGate } from "../support/bridge-over-real-gate.js";

let h: GateHarness;
let bridge: BridgeSession;

useBridgeOverRealGate(
  (harness, session) => {
    h = harness;
    bridge = session;
  },
  () => startSimWorld(["alpha"], { alpha: { shellSuppression: true } }, { clock: "manual" }),
);

describe("a no-op write", () => {
  it("unpins an unpinned thread and returns without the simulator's clock moving", async () => {
    const alpha = h.world.env("alpha");
    const shell = alpha.model.httpShell();
    const rows =
      shell.kind === "ok"
        ? (shell.body as { threads: Array<{ id: string; pinnedAt?: unknown }> }).threads
        : [];
    expect(rows.find((row) => row.id === IDLE_THREAD)?.pinnedAt ?? null).toBeNull(); // unpinned: a no-op
    const startedAt = alpha.clock.now();
    const leaseId = await h.grantLease();
    const before = alpha.model.receivedCommands.length;

    const result = await bridge.call("t3_escrever_thread_unpin", {
      leaseId,
      environment: "alpha",
      operationId: "no-op-unpin",
      input: { threadId: IDLE_THREAD },
    });

    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ state: "completed", action: "thread.unpin" });
    expect(alpha.model.receivedCommands.slice(before)).toEqual([
      expect.objectContaining({
        type: "thread.unpin",
        payload: expect.objectContaining({ threadId: IDLE_THREAD }),
      }),
    ]);
    // Nothing advanced the simulated time, so no held-back shell row could have been released.
    expect(alpha.clock.now()).toBe(startedAt);
  });
});
