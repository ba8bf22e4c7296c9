/**
 * The operator's policy (no lease, no journal) sends through the gate's own send and reads its
 * answers the same way: one frame, a typed refusal ran nothing, and a commandId T3 already holds
 * for another thread leaves the outcome unknown instead of being reported as a refusal.
 */

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BuiltPayload, prepareAction, SAMPLE_IDS } from "../../src/actions/index.js";
import { sendWithoutLease } from "../../src/dispatch/index.js";
import { type Harness, startHarness } from "./support/harness.js";

const A = SAMPLE_IDS.threadId;
const B = "thread-operator-b";
let harness: Harness;

/** The payload the catalogue builds for an action, as ops builds it. */
const payloadOf = (action: "thread.pin", threadId: string, key: string): BuiltPayload =>
  prepareAction(action, { threadId }, key).payload;

/** The same command, pointed at another thread: T3 already holds its commandId. */
function retargeted(payload: BuiltPayload, threadId: string): BuiltPayload {
  if (payload.kind !== "dispatch") throw new Error("a dispatch payload was expected");
  return { kind: "dispatch", command: { ...payload.command, threadId } };
}

beforeAll(async () => {
  harness = await startHarness({
    aliases: ["operator"],
    clock: "real",
    seed: (env) => {
      env.model.addThread({ id: A, projectId: SAMPLE_IDS.projectId, state: "idle" });
      env.model.addThread({ id: B, projectId: SAMPLE_IDS.projectId, state: "idle" });
    },
  });
});

afterAll(async () => {
  await harness?.close();
});

describe("a write sent under the operator's policy", () => {
  it("completes with T3's receipt after exactly one frame", async () => {
    const rpc = await (await harness.registry.connect("operator")).rpc();
    const payload = payloadOf("thread.pin", A, "ops|operator|op-1");
    const outcome = await sendWithoutLease(rpc, payload);
    expect(outcome.kind).toBe("completed");
    expect(payload.kind === "dispatch" && harness.framesFor(String(payload.command.commandId))).toBe(1);
  });

  it("is uncertain, not refused, when T3 says the commandId belongs to another thread", async () => {
    const rpc = await (await harness.registry.connect("operator")).rpc();
    const first = payloadOf("thread.pin", A, "ops|operator|op-2");
    expect((await sendWithoutLease(rpc, first)).kind).toBe("completed");
    const outcome = await sendWithoutLease(rpc, retargeted(first, B));
    expect(outcome.kind).toBe("uncertain");
    expect(outcome.kind === "uncertain" && outcome.error.message).toMatch(/conflicts/);
  });

  it("is refused with T3's typed answer when T3 decides against it (a thread it does not have)", async () => {
    const rpc = await (await harness.registry.connect("operator")).rpc();
    const outcome = await sendWithoutLease(
      rpc,
      payloadOf("thread.pin", "thread-nowhere", "ops|operator|op-3"),
    );
    expect(outcome).toMatchObject({ kind: "refused", error: { code: "t3_refused" } });
  });
});
