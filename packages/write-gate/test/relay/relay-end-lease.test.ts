/**
 * `end_lease`: the holder of a lease ends it (an OAuth session of `serve --http` that ended, ADR
 * 0049). Only the holder's secret ends it; anyone else is refused like a foreign lease, and the
 * lease stays open. Ending one already closed answers `{ended: false}`.
 */

import { type GateHarness, leaseScopeFor, startGateHarness } from "@t3-connector/test-support/gate-harness";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scopeFingerprint } from "../../src/approval/index.js";
import { GateLeaseKeeper, holderHashOf } from "../../src/lease/lease-keeper.js";

let h: GateHarness;

beforeAll(async () => {
  h = await startGateHarness();
});
afterAll(async () => {
  await h?.close();
});

const HOLDER = "holder-secret-of-one-session";

async function heldLease(): Promise<string> {
  const keeper = h.gate.lease;
  if (!(keeper instanceof GateLeaseKeeper)) throw new Error("the gate's lease is not a GateLeaseKeeper");
  const scope = await leaseScopeFor(h.world);
  return keeper.grant({
    scope,
    scopeFingerprint: scopeFingerprint(scope),
    credentialId: "test-credential",
    holderHash: holderHashOf(HOLDER),
    client: { name: "ChatGPT", signedInAt: "2026-12-06T17:02:00.000Z" },
  }).leaseId;
}

describe("the relay's end_lease op", () => {
  it("ends the lease for its holder only, and says when it was already closed", async () => {
    const leaseId = await heldLease();
    for (const leaseSecret of [undefined, "someone-else"]) {
      const foreign = await h.relay({ op: "end_lease", leaseId, ...(leaseSecret ? { leaseSecret } : {}) });
      expect(foreign.status).toBe(403);
      expect(foreign.body).toMatchObject({ error: "lease_closed" });
      expect(h.gate.lease.get(leaseId)).not.toBeNull();
    }
    const ended = await h.relay({ op: "end_lease", leaseId, leaseSecret: HOLDER });
    expect(ended).toMatchObject({ status: 200, body: { ended: true } });
    expect(h.gate.lease.get(leaseId)).toBeNull();
    const keeper = h.gate.lease as GateLeaseKeeper;
    expect(keeper.history()[0]).toMatchObject({
      leaseId,
      closeReason: "session_ended",
      client: { name: "ChatGPT", signedInAt: "2026-12-06T17:02:00.000Z" },
    });
    const again = await h.relay({ op: "end_lease", leaseId, leaseSecret: HOLDER });
    expect(again).toMatchObject({ status: 200, body: { ended: false } });
  });

  it("refuses a body without a lease id", async () => {
    const answer = await h.relay({ op: "end_lease" });
    expect(answer).toMatchObject({ status: 400, body: { error: "invalid_request" } });
  });
});
