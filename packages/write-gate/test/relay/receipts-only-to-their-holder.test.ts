/**
 * Receipts and ids only to their holder (ADR 0040 §7), attacked as a second client on the same
 * machine would: it knows another client's operationId and input (a log, a shared prompt) and
 * holds a lease that covers the same write. Replaying it is refused `operation_not_held` before
 * the journal is read (no receipt, nothing sent); reconciling it tells the state but not the
 * receipt; the client that made the write still gets its receipt on a replay.
 */
import { randomBytes } from "node:crypto";
import { type GateHarness, startGateHarness } from "@t3-connector/test-support/gate-harness";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pinIdleThread } from "../support/pin-idle-thread.js";

let h: GateHarness;

beforeAll(async () => {
  h = await startGateHarness();
});
afterAll(async () => {
  await h?.close();
});

type Body = Record<string, unknown>;
const body = (answer: { body: unknown }) => answer.body as Body;
const secretOf = () => randomBytes(32).toString("base64url");

describe("a receipt answers only the client whose write it is", () => {
  it("refuses another client's replay of an operationId with the same input, and answers the owner's", async () => {
    // The keeper's seam grants a lease any caller holds: both clients are covered by it.
    const leaseId = await h.grantLease();
    const owner = secretOf();
    const stranger = secretOf();
    const first = await h.relay(pinIdleThread(leaseId, "op-owned-pin", { leaseSecret: owner }));
    expect(first.status).toBe(200);
    const receipt = body(first).receipt;
    const before = h.world.commandCount();

    const replayed = await h.relay(pinIdleThread(leaseId, "op-owned-pin", { leaseSecret: stranger }));
    expect(replayed.status).toBe(403);
    expect(body(replayed)).toMatchObject({ error: "operation_not_held", details: { recorded: false } });
    expect(JSON.stringify(body(replayed))).not.toContain(JSON.stringify(receipt));
    expect(body(replayed).message).toMatch(/choose an operationId of your own/);

    const reconciled = body(
      await h.relay({
        op: "reconcile",
        environment: "alpha",
        operationId: "op-owned-pin",
        leaseSecret: stranger,
      }),
    );
    expect(reconciled).toMatchObject({ state: "completed", receipt: null });

    const own = await h.relay(pinIdleThread(leaseId, "op-owned-pin", { leaseSecret: owner }));
    expect(body(own)).toMatchObject({ state: "completed", replayed: true, receipt });
    expect(h.world.commandCount()).toBe(before);
  });

  it("leaves an operationId free when the first caller was refused before anything was recorded", async () => {
    const leaseId = await h.grantLease({ environments: ["beta"] });
    const first = secretOf();
    const refused = await h.relay(pinIdleThread(leaseId, "op-free-after-refusal", { leaseSecret: first }));
    expect(body(refused).error).toBe("environment_not_in_lease");
    const wider = await h.grantLease();
    const second = await h.relay(pinIdleThread(wider, "op-free-after-refusal", { leaseSecret: secretOf() }));
    expect(second.status, JSON.stringify(second.body)).toBe(200);
  });
});
