/**
 * The next lease for the same bridge process (ADR 0040), at the relay, as a client that keeps
 * calling `request_approval {}` meets it: after its lease ends (End, Revoke all, expiry on the
 * injected clock) the calls open one request between them, not one each; the lease the person
 * approves for it answers the same secret. The approval is stood in by the keeper's grant with
 * the request's holder hash (the passkey ceremony is the browser tier's: next-lease-through-bridge).
 */
import { randomBytes } from "node:crypto";
import { type GateHarness, leaseScopeFor, startGateHarness } from "@t3-connector/test-support/gate-harness";
import { OffsetClock } from "@t3-connector/test-support/sim-gate";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GateLeaseKeeper, holderHashOf } from "../../src/lease/lease-keeper.js";
import { pinIdleThread } from "../support/pin-idle-thread.js";

let h: GateHarness;
const clock = new OffsetClock();

beforeAll(async () => {
  h = await startGateHarness({ clock });
});
afterAll(async () => {
  await h?.close();
});

type Body = Record<string, unknown>;
const body = (answer: { body: unknown }) => answer.body as Body;
const secretOf = () => randomBytes(32).toString("base64url");

function keeper(): GateLeaseKeeper {
  if (!(h.gate.lease instanceof GateLeaseKeeper))
    throw new Error("the gate's lease is not a GateLeaseKeeper");
  return h.gate.lease;
}

/** What the person's approval of the holder's request grants: a lease held by that secret. */
async function approveFor(secret: string): Promise<string> {
  const scope = await leaseScopeFor(h.world);
  return keeper().grant({
    scope,
    scopeFingerprint: "f".repeat(64),
    credentialId: "test-credential",
    holderHash: holderHashOf(secret),
  }).leaseId;
}

const ask = (secret: string, extra: Body = {}) =>
  h.relay({ op: "request_approval", bridge: "bridge-next-lease", leaseSecret: secret, ...extra });

/** Twenty asks in a row: they must all answer the one request the first opened. */
async function askTwentyTimes(secret: string): Promise<Set<unknown>> {
  const ids = new Set<unknown>();
  for (let index = 0; index < 20; index += 1) {
    const answer = body(await ask(secret));
    expect(answer).toMatchObject({ active: false, decision: "pending" });
    expect(answer.leaseSecret).toBeUndefined();
    ids.add(answer.requestId);
  }
  return ids;
}

const ENDINGS: ReadonlyArray<readonly [string, (leaseId: string) => void]> = [
  ["End on the page", (leaseId) => keeper().end(leaseId, "ended")],
  ["Revoke all", () => keeper().closeAll("revoked")],
  ["its 60-minute expiry", () => (clock.offsetMs += 61 * 60_000)],
];

describe("the next lease for the same holder", () => {
  it("opens one request however often a holder without a lease asks, keeps its own secret, and answers it the lease", async () => {
    const secret = secretOf();
    const ids = await askTwentyTimes(secret);
    expect(ids.size).toBe(1);
    const leaseId = await approveFor(secret);
    expect(body(await ask(secret))).toMatchObject({ active: true, leaseId });
    expect(body(await h.relay({ op: "lease", leaseSecret: secret }))).toMatchObject({ leaseId });
    keeper().closeAll("test_reset");
  });

  for (const [ending, end] of ENDINGS) {
    it(`after ${ending}, a second and a third lease each come from exactly one request`, async () => {
      const secret = secretOf();
      let previous: string | undefined;
      for (const round of [1, 2, 3]) {
        const ids = await askTwentyTimes(secret);
        expect(ids.size, `round ${round}`).toBe(1);
        const leaseId = await approveFor(secret);
        expect(leaseId).not.toBe(previous);
        expect(body(await ask(secret))).toMatchObject({ active: true, leaseId });
        const before = h.world.commandCount();
        const pinned = await h.relay(
          pinIdleThread(leaseId, `op-next-${ending}-${round}`, { leaseSecret: secret }),
        );
        expect(pinned.status, JSON.stringify(pinned.body)).toBe(200);
        expect(h.world.commandCount()).toBe(before + 1);
        end(leaseId);
        expect(body(await h.relay({ op: "lease", leaseSecret: secret }))).toEqual({ active: false });
        previous = leaseId;
      }
    });
  }

  it("leaves a request that proposes something its own request, replacing the holder's pending one", async () => {
    const secret = secretOf();
    const first = body(await ask(secret)).requestId;
    const proposing = body(await ask(secret, { actions: ["thread.pin"] }));
    expect(proposing.requestId).not.toBe(first);
    expect(body(await ask(secret)).requestId).toBe(proposing.requestId);
    const old = body(await h.relay({ op: "request_approval", requestId: first, leaseSecret: secret }));
    expect(old).toMatchObject({ active: false, decision: "superseded" });
    keeper().closeAll("test_reset");
  });

  it("refuses a restarted bridge's call under the old process's lease, saying so and how to ask again", async () => {
    const oldProcess = secretOf();
    await ask(oldProcess);
    const leaseId = await approveFor(oldProcess);
    const before = h.world.commandCount();
    const refused = await h.relay(pinIdleThread(leaseId, "op-restarted-bridge", { leaseSecret: secretOf() }));
    expect(refused.status).toBe(403);
    expect(body(refused)).toMatchObject({ error: "lease_closed", details: { reason: "lease_not_held" } });
    expect(body(refused).message).toMatch(/earlier run of this bridge.*t3_pedir_aprovacao \{\}/);
    expect(h.world.commandCount()).toBe(before);
    keeper().closeAll("test_reset");
  });
});
