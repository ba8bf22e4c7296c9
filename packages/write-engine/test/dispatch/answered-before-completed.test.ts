/**
 * A completion is answered without waiting for `completed` to reach the disk (ADR 0062). If the
 * process stops before that write lands, the record is `uncertain` on disk: a new journal and
 * dispatcher settle it by reading T3, which shows the effect, so nothing is sent again, and a
 * repeat of the operationId replays `completed`. (The kill -9 form of this is the gate's crash
 * test, point `answered_before_completed`.)
 */
import { systemClock } from "@t3-connector/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deriveIds, SAMPLE_IDS } from "../../src/actions/index.js";
import { createDispatcher } from "../../src/dispatch/index.js";
import { openJournal } from "../../src/journal/index.js";
import { CHANNEL, type Harness, LEASE_ID, startHarness } from "./support/harness.js";

const T = SAMPLE_IDS.threadId;
let harness: Harness;

beforeAll(async () => {
  harness = await startHarness({
    aliases: ["answered"],
    seed: (env) => env.model.addThread({ id: T, projectId: SAMPLE_IDS.projectId, state: "completed" }),
  });
});

afterAll(async () => {
  await harness?.close();
});

describe("a completion answered before it reached the disk", () => {
  it("is settled after a restart by reading T3, and never sent again", async () => {
    const env = harness.env("answered");
    const pin = {
      leaseId: LEASE_ID,
      environment: "answered",
      operationId: "op-answered",
      action: "thread.pin",
      input: { threadId: T },
    };
    const key = harness.dispatcher.operationKey("answered", "op-answered");
    const commandId = deriveIds(key, "thread.pin").commandId;
    // The write of `completed` never lands: the process stops before it does.
    harness.journal.complete = () => new Promise<never>(() => undefined);
    const answered = await harness.dispatcher.dispatch(pin);
    expect(answered).toMatchObject({ state: "completed", replayed: false });
    expect(answered.receipt).toHaveProperty("sequence");
    expect(harness.framesFor(commandId)).toBe(1);
    await harness.journal.close();

    const journal = await openJournal({ stateDir: harness.stateDir });
    try {
      expect(await journal.get(key)).toMatchObject({ state: "uncertain" });
      const restarted = harness.lease.wrap(
        createDispatcher({ registry: harness.registry, journal, clock: systemClock, channel: CHANNEL }),
      );
      // Reading needs no lease (ADR 0042), and finds the effect: settled, nothing sent.
      expect(await restarted.reconcile(key)).toMatchObject({
        state: "completed",
        settled: true,
        observation: { found: true },
        resend: null,
      });
      expect(await restarted.dispatch(pin)).toMatchObject({ state: "completed", replayed: true });
      expect(harness.framesFor(commandId)).toBe(1);
      expect(commandsOf(env)).toBe(1);
    } finally {
      await journal.close();
    }
  });
});

function commandsOf(env: ReturnType<Harness["env"]>): number {
  return env.model.receivedCommands.filter((command) => command.type === "thread.pin").length;
}
