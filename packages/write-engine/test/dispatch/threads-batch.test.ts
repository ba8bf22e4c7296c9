/**
 * The threads batch (ADR 0074) through the engine against the simulator: five threads snoozed
 * under one lease, each sent once; the same batchId again sends nothing; another list under that
 * batchId is a conflict; a refused item is final and the batch goes on; an item whose answer is
 * lost stops the batch there, the rest not attempted.
 */
import { randomUUID } from "node:crypto";
import { systemClock } from "@t3-connector/core";
import { describe, expect, it } from "vitest";
import { deriveIds, SAMPLE_IDS } from "../../src/actions/index.js";
import { LeaseRule, runThreadsBatch } from "../../src/dispatch/index.js";
import type { DispatchRequest } from "../../src/dispatch/types.js";
import { CHANNEL, dispatchFailure, type Harness, LEASE_ID, useHarness } from "./support/harness.js";

const THREADS = Array.from({ length: 6 }, () => randomUUID());
const UNTIL = "2099-01-02T03:04:05.000Z";
let harness: Harness;
useHarness(
  {
    aliases: ["batch"],
    seed: (env) => {
      for (const id of THREADS)
        env.model.addThread({ id, projectId: SAMPLE_IDS.projectId, state: "completed" });
    },
  },
  (started) => {
    harness = started;
  },
  { reopenAndClearFaults: true },
);

function batch(
  input: Record<string, unknown>,
  operationId: string,
  before?: (request: DispatchRequest) => void,
) {
  return runThreadsBatch(
    {
      journal: harness.journal,
      registry: harness.registry,
      channel: CHANNEL,
      leases: new LeaseRule(systemClock),
      dispatchItem: (request) => {
        before?.(request);
        return harness.dispatcher.dispatchOutcome(request);
      },
    },
    { leaseId: LEASE_ID, lease: harness.lease.facts(LEASE_ID), environment: "batch", operationId, input },
  );
}

function commandIdOf(operationId: string, action: "thread.snooze" | "thread.pin"): string {
  return deriveIds(harness.dispatcher.operationKey("batch", operationId), action).commandId;
}

describe("t3_escrever_threads_batch in the engine", () => {
  it("snoozes five threads, each sent once, and the same batchId again sends nothing", async () => {
    const five = THREADS.slice(0, 5);
    const input = { action: "snooze", threads: five, until: UNTIL, batchId: "tidy-friday" };
    const done = await batch(input, "op-batch-1");
    expect(done).toMatchObject({ state: "completed", batchId: "tidy-friday", summary: { completed: 5 } });
    for (const item of done.items) {
      expect(item).toMatchObject({ state: "completed", replayed: false });
      expect(harness.framesFor(commandIdOf(item.operationId, "thread.snooze"))).toBe(1);
      expect(harness.env("batch").model.store.threads.get(item.threadId)?.thread.snoozedUntil).toBe(UNTIL);
    }
    const frames = harness.writeFrames.length;
    // Another envelope operationId, the same batchId: a resume, not a repeat.
    const again = await batch(input, "op-batch-2");
    expect(again.items.map((item) => [item.state, item.replayed])).toEqual(
      five.map(() => ["completed", true]),
    );
    expect(harness.writeFrames.length).toBe(frames);
    const manifest = await harness.journal.get(
      harness.dispatcher.operationKey("batch", "threads-batch/tidy-friday"),
    );
    expect(manifest).toMatchObject({ action: "threads.batch", state: "completed" });
  });

  it("refuses another list under the same batchId, before anything is sent", async () => {
    const frames = harness.writeFrames.length;
    const error = await dispatchFailure(
      batch({ action: "snooze", threads: THREADS.slice(0, 4), until: UNTIL, batchId: "tidy-friday" }, "op-x"),
    );
    expect(error.code).toBe("operation_conflict");
    expect(harness.writeFrames.length).toBe(frames);
  });

  it("answers a refused item and goes on to the next", async () => {
    const missing = randomUUID();
    const done = await batch({ action: "pin", threads: [missing, THREADS[5]] }, "op-pin-missing");
    expect(done.state).toBe("completed");
    expect(done.items[0]).toMatchObject({ state: "refused", code: "thread_not_found" });
    expect(done.items[1]).toMatchObject({ state: "completed" });
  });

  it("stops at the first uncertain item and says so; the rest are not attempted", async () => {
    const env = harness.env("batch");
    const threads = THREADS.slice(0, 4);
    const done = await batch({ action: "unsnooze", threads }, "op-lost", (request) => {
      // The connection drops right after the third item's send reaches T3.
      if (request.operationId.endsWith("/2")) env.faults.set({ dropSocketAfterDispatch: true });
    });
    expect(done).toMatchObject({
      state: "stopped",
      stoppedAt: 2,
      summary: { completed: 2, uncertain: 1, not_attempted: 1 },
    });
    expect(done.items[2]).toMatchObject({ state: "uncertain", code: "reconciliation_required" });
    expect(done.items[3]).toMatchObject({ state: "not_attempted", replayed: false });
    const lastKey = harness.dispatcher.operationKey("batch", done.items[3]?.operationId as string);
    expect(harness.framesFor(deriveIds(lastKey, "thread.unsnooze").commandId)).toBe(0);
    const manifest = await harness.journal.get(
      harness.dispatcher.operationKey("batch", "threads-batch/op-lost"),
    );
    expect(manifest?.state).toBe("preparing");
  });

  it("refuses bad input, and a closed lease, writing no manifest", async () => {
    for (const input of [
      { action: "snooze", threads: [THREADS[0]] },
      { action: "pin", threads: [THREADS[0]], until: UNTIL },
      { action: "pin", threads: [THREADS[0], THREADS[0]] },
      { action: "pin", threads: Array.from({ length: 21 }, () => randomUUID()) },
      { action: "delete", threads: [THREADS[0]] },
    ]) {
      expect((await dispatchFailure(batch(input, "op-bad"))).code).toBe("invalid_input");
    }
    harness.lease.open = false;
    expect((await dispatchFailure(batch({ action: "pin", threads: [THREADS[0]] }, "op-closed"))).code).toBe(
      "lease_closed",
    );
    expect(
      await harness.journal.get(harness.dispatcher.operationKey("batch", "threads-batch/op-closed")),
    ).toBeUndefined();
  });
});
