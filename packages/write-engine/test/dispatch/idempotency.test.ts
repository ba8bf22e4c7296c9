import { describe, expect, it } from "vitest";
import { deriveIds, SAMPLE_IDS } from "../../src/actions/index.js";
import {
  CHANNEL,
  commandsSince,
  dispatchFailure,
  type Harness,
  LEASE_ID,
  useHarness,
} from "./support/harness.js";

let harness: Harness;

useHarness(
  {
    aliases: ["conflict", "crowd", "keys"],
    seed: (env) => env.model.addThread({ id: SAMPLE_IDS.threadId, projectId: SAMPLE_IDS.projectId }),
  },
  (started) => {
    harness = started;
  },
);

function rename(environment: string, operationId: string, title: string) {
  return harness.dispatcher.dispatch({
    leaseId: LEASE_ID,
    environment,
    operationId,
    action: "thread.title",
    input: { threadId: SAMPLE_IDS.threadId, title },
  });
}

describe("idempotency per (environment, operationId)", () => {
  it("refuses another input under a used operationId as operation_conflict and sends nothing", async () => {
    const env = harness.env("conflict");
    const before = env.model.receivedCommands.length;
    await rename("conflict", "op-conflict", "first title");
    const error = await dispatchFailure(rename("conflict", "op-conflict", "second title"));
    expect(error.code).toBe("operation_conflict");
    expect(commandsSince(env, before)).toHaveLength(1);
    expect(env.model.getThread(SAMPLE_IDS.threadId)?.shell.title).toBe("first title");
  });

  it("turns 50 simultaneous dispatches of one operation into exactly one command", async () => {
    const env = harness.env("crowd");
    const before = env.model.receivedCommands.length;
    const results = await Promise.all(
      Array.from({ length: 50 }, () => rename("crowd", "op-crowd", "crowded title")),
    );
    const key = harness.dispatcher.operationKey("crowd", "op-crowd");
    const sent = commandsSince(env, before);
    expect(sent.map((command) => command.commandId)).toEqual([deriveIds(key, "thread.title").commandId]);
    expect(harness.framesFor(deriveIds(key, "thread.title").commandId)).toBe(1);
    expect(results.filter((result) => !result.replayed)).toHaveLength(1);
    expect(new Set(results.map((result) => result.receipt.sequence))).toEqual(new Set([sent[0]?.sequence]));
  });

  it("keys an operationId per environment: the same id elsewhere is another operation", async () => {
    const crowdKey = harness.dispatcher.operationKey("crowd", "op-shared");
    const keysKey = harness.dispatcher.operationKey("keys", "op-shared");
    expect(crowdKey).not.toBe(keysKey);
    const env = harness.env("keys");
    const before = env.model.receivedCommands.length;
    const result = await rename("keys", "op-shared", "title in keys");
    expect(result).toMatchObject({ state: "completed", replayed: false, key: keysKey });
    expect(commandsSince(env, before)).toHaveLength(1);
  });

  it("carries on with a preparing record a stopped process left behind (nothing was sent for it)", async () => {
    const env = harness.env("keys");
    await harness.journal.reserve({
      environmentId: env.environmentId,
      destination: `t3://${env.environmentId}`,
      caller: CHANNEL,
      operationId: "op-orphan",
      action: "thread.title",
      input: { threadId: SAMPLE_IDS.threadId, title: "orphaned title" },
    });
    const before = env.model.receivedCommands.length;
    const result = await rename("keys", "op-orphan", "orphaned title");
    expect(result).toMatchObject({ state: "completed", replayed: false });
    expect(commandsSince(env, before)).toHaveLength(1);
    expect(harness.framesFor(String(result.derivedIds.commandId))).toBe(1);
  });

  it("refuses a thread.send whose clientRequestId is not the operationId, without a record", async () => {
    const error = await dispatchFailure(
      harness.dispatcher.dispatch({
        leaseId: LEASE_ID,
        environment: "keys",
        operationId: "op-send-a",
        action: "thread.send",
        input: {
          threadId: SAMPLE_IDS.threadId,
          text: "hi",
          clientRequestId: "op-send-b",
          delivery: "start_immediately",
        },
      }),
    );
    expect(error.code).toBe("invalid_input");
    expect(error.details).toMatchObject({ reason: "request_id_mismatch", recorded: false });
    expect(await harness.journal.get(harness.dispatcher.operationKey("keys", "op-send-a"))).toBeUndefined();
  });

  it("refuses an input the strict schema rejects without recording anything", async () => {
    const error = await dispatchFailure(
      harness.dispatcher.dispatch({
        leaseId: LEASE_ID,
        environment: "keys",
        operationId: "op-bad-input",
        action: "thread.title",
        input: { threadId: SAMPLE_IDS.threadId, title: "x", ambiente: "other" },
      }),
    );
    expect(error.code).toBe("invalid_input");
    expect(
      await harness.journal.get(harness.dispatcher.operationKey("keys", "op-bad-input")),
    ).toBeUndefined();
  });
});
