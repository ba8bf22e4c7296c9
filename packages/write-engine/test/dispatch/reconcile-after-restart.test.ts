/**
 * An uncertain write outlives the process that sent it: a new journal opened on the same state
 * directory and a new dispatcher settle it from what the record alone holds (derived ids and the
 * reconciliation hints), by reading T3.
 */

import { ConnectorError, systemClock } from "@t3-connector/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deriveIds, SAMPLE_IDS } from "../../src/actions/index.js";
import { createDispatcher } from "../../src/dispatch/index.js";
import { openJournal } from "../../src/journal/index.js";
import { CHANNEL, type Harness, LEASE_ID, startHarness } from "./support/harness.js";

const T = SAMPLE_IDS.threadId;
let harness: Harness;

beforeAll(async () => {
  harness = await startHarness({
    aliases: ["restart"],
    seed: (env) => env.model.addThread({ id: T, projectId: SAMPLE_IDS.projectId, state: "completed" }),
  });
});

afterAll(async () => {
  await harness?.close();
});

describe("reconciliation after a restart", () => {
  it("settles an uncertain record left by the previous process without sending anything", async () => {
    const env = harness.env("restart");
    env.faults.set({ dropSocketAfterDispatch: true });
    const lost = await harness.dispatcher
      .dispatch({
        leaseId: LEASE_ID,
        environment: "restart",
        operationId: "op-restart",
        action: "thread.archive",
        input: { threadId: T },
      })
      .catch((error: unknown) => error);
    expect(lost).toBeInstanceOf(ConnectorError);
    expect((lost as ConnectorError).code).toBe("reconciliation_required");
    env.faults.clear();
    const key = harness.dispatcher.operationKey("restart", "op-restart");
    await harness.journal.close();

    const journal = await openJournal({ stateDir: harness.stateDir });
    try {
      expect(await journal.get(key)).toMatchObject({ state: "uncertain" });
      const restarted = harness.lease.wrap(
        createDispatcher({
          registry: harness.registry,
          journal,
          clock: systemClock,
          channel: CHANNEL,
        }),
      );
      const outcome = await restarted.reconcile(key);
      expect(outcome).toMatchObject({
        state: "completed",
        settled: true,
        observation: { method: "command_event_in_thread", found: true },
      });
      expect(harness.framesFor(deriveIds(key, "thread.archive").commandId)).toBe(1);
    } finally {
      await journal.close();
    }
  });
});
