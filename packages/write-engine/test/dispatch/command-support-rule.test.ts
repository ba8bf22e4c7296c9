/**
 * Command support is a rule of the engine (ADR 0038): given a cache, the dispatcher refuses an
 * action the environment's T3 cannot decode before it parses the input or journals anything, and a
 * refusal whose decode defect lists the accepted types teaches the cache. Its typed outcome names
 * the thread the write targets, so the gate never parses an action's input itself.
 */
import { systemClock } from "@t3-connector/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SAMPLE_IDS, SAMPLE_INPUTS } from "../../src/actions/index.js";
import { CommandSupportCache } from "../../src/capabilities/index.js";
import { createDispatcher } from "../../src/dispatch/index.js";
import {
  CHANNEL,
  commandsSince,
  dispatchFailure,
  type Harness,
  LEASE_ID,
  type LeasedDispatcher,
  simulatorWorkspace,
  startHarness,
} from "./support/harness.js";

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness({
    aliases: ["older", "assumed", "current"],
    compat: { older: "0.0.31", assumed: "0.0.31" },
    seed: (env) =>
      env.model.addThread({ id: SAMPLE_IDS.threadId, projectId: SAMPLE_IDS.projectId, state: "completed" }),
  });
});

afterAll(async () => {
  await harness?.close();
});

function dispatcherWith(commandSupport: CommandSupportCache): LeasedDispatcher {
  return harness.lease.wrap(
    createDispatcher({
      registry: harness.registry,
      journal: harness.journal,
      clock: systemClock,
      channel: CHANNEL,
      verifyWorkspace: simulatorWorkspace,
      commandSupport,
    }),
  );
}

const reorder = (
  environment: string,
  operationId: string,
  input: unknown = SAMPLE_INPUTS["thread.pin.reorder"],
) => ({
  leaseId: LEASE_ID,
  environment,
  operationId,
  action: "thread.pin.reorder",
  input,
});

describe("command support, checked by the engine", () => {
  it("refuses an action the older server cannot decode before parsing its input, with nothing journaled or sent", async () => {
    const dispatcher = dispatcherWith(new CommandSupportCache());
    const older = harness.env("older");
    const before = older.model.receivedCommands.length;
    // Not even a valid input: the type is what the server refuses first.
    const refused = await dispatchFailure(
      dispatcher.dispatch(reorder("older", "op-support-1", { junk: true })),
    );
    expect(refused.code).toBe("action_unsupported");
    expect(refused.message).toContain("T3 0.0.31");
    expect(refused.message).toContain("older");
    expect(commandsSince(older, before)).toEqual([]);
    expect(await harness.journal.get(dispatcher.operationKey("older", "op-support-1"))).toBeUndefined();
  });

  it("learns from the first refusal of a server it assumed accepted everything: the next is refused before the journal", async () => {
    const assumeAll = new CommandSupportCache({
      probe: async (connection) => ({
        environmentId: connection.environmentId,
        serverVersion: connection.version,
        acceptedTypes: "all",
        source: "protocol",
      }),
    });
    const dispatcher = dispatcherWith(assumeAll);
    const first = await dispatchFailure(dispatcher.dispatch(reorder("assumed", "op-support-2")));
    expect(first).toMatchObject({ code: "action_unsupported", details: { state: "refused" } });
    const second = await dispatchFailure(dispatcher.dispatch(reorder("assumed", "op-support-3")));
    expect(second.code).toBe("action_unsupported");
    expect(second.details?.state).toBe("not_recorded");
    expect(await harness.journal.get(dispatcher.operationKey("assumed", "op-support-3"))).toBeUndefined();
  });

  it("names the environment and the thread a write targets in its outcome, completed or refused; no thread for a launch or an input that did not parse", async () => {
    const dispatcher = dispatcherWith(new CommandSupportCache());
    const pin = { leaseId: LEASE_ID, environment: "current", action: "thread.pin" };
    const completed = await dispatcher.dispatchOutcome({
      ...pin,
      operationId: "op-outcome-1",
      input: { threadId: SAMPLE_IDS.threadId },
    });
    expect(completed).toMatchObject({ state: "completed", threadId: SAMPLE_IDS.threadId });
    const missing = await dispatcher.dispatchOutcome({
      ...pin,
      operationId: "op-outcome-2",
      input: { threadId: "thread-that-does-not-exist" },
    });
    expect(missing).toMatchObject({ state: "refused", threadId: "thread-that-does-not-exist" });
    const unparsed = await dispatcher.dispatchOutcome({ ...pin, operationId: "op-outcome-3", input: {} });
    expect(unparsed.state).toBe("not_recorded");
    expect(unparsed.threadId).toBeUndefined();
    // The environment resolved before the input failed to parse: the outcome names it all the same.
    expect(unparsed.environmentId).toBe(harness.env("current").environmentId);
    const launched = await dispatcher.dispatchOutcome({
      leaseId: LEASE_ID,
      environment: "current",
      action: "thread.launch",
      operationId: "op-outcome-4",
      input: SAMPLE_INPUTS["thread.launch"],
    });
    expect(launched).toMatchObject({ state: "completed", runtimeMode: "approval-required" });
    expect(launched.threadId).toBeUndefined();
  });
});
