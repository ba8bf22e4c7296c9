/**
 * Read-after-write through the bridge: right after a completed write, the lease's reads show its
 * effect, not the value before it (`t3_thread` the pin and unpin, `t3_threads` the new title). The
 * gate reads T3's own shell and the thread's projection for each, never a mirror.
 */

import type { GateHarness } from "@t3-connector/test-support/gate-harness";
import { IDLE_THREAD } from "@t3-connector/test-support/sim-world";
import { describe, expect, it } from "vitest";
import { type Body, type BridgeSession, structured, textOf } from "../support/bridge-client.js";
import { useBridgeOverRealGate } from "../support/bridge-over-real-gate.js";

let h: GateHarness;
let bridge: BridgeSession;

useBridgeOverRealGate((harness, session) => {
  h = harness;
  bridge = session;
});

let writes = 0;

async function write(leaseId: string, tool: string, input: Body): Promise<void> {
  writes += 1;
  const done = await bridge.call(tool, {
    leaseId,
    environment: "alpha",
    operationId: `op-read-own-${writes}`,
    input: { threadId: IDLE_THREAD, ...input },
  });
  expect(done.isError, textOf(done)).toBeFalsy();
}

async function readBoth(leaseId: string): Promise<{ one: Body; listed: Body }> {
  const one = structured(
    await bridge.call("t3_thread", { leaseId, environment: "alpha", threadId: IDLE_THREAD }),
  );
  const all = structured(await bridge.call("t3_threads", { leaseId, environment: "alpha" }));
  const listed = ((all.threads as Body[]) ?? []).find((row) => row.threadId === IDLE_THREAD) as Body;
  return { one, listed };
}

describe("the lease's reads right after a completed write", () => {
  it("show the pin, the unpin and the rename at once, five times over", async () => {
    const leaseId = await h.grantLease();
    for (let round = 0; round < 5; round += 1) {
      await write(leaseId, "t3_escrever_thread_pin", {});
      let read = await readBoth(leaseId);
      expect(read.one.pinned, `round ${round} t3_thread after pin`).toBe(true);
      await write(leaseId, "t3_escrever_thread_unpin", {});
      read = await readBoth(leaseId);
      expect(read.one.pinned, `round ${round} t3_thread after unpin`).toBe(false);
      await write(leaseId, "t3_escrever_thread_title", { title: `renamed ${round}` });
      read = await readBoth(leaseId);
      expect(read.one.title).toBe(`renamed ${round}`);
      expect(read.listed.title).toBe(`renamed ${round}`);
    }
  });
});
