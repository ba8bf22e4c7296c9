import { ACTION_IDS, type LeaseScope, parseLeaseScope } from "@t3-connector/write-engine/actions";
import { describe, expect, it } from "vitest";
import {
  GateLeaseKeeper,
  holderHashOf,
  LEASE_TTL_MS,
  MAX_LISTED_WRITES,
  MAX_OPEN_LEASES,
} from "../../src/lease/lease-keeper.js";
import { ManualClock } from "../security/support/gate.js";
import { leaseVerdict } from "../support/lease-verdict.js";

const SCOPE: LeaseScope = parseLeaseScope({
  scopeVersion: 2,
  runtimeMode: "full-access",
  environments: [
    {
      alias: "alpha",
      environmentId: "env-a",
      label: "alpha",
      destination: "t3://env-a",
      projects: [{ id: "p1", name: "one", directory: "/w/one", workspaceRoots: ["/w/one"] }],
      actions: ["thread.send"],
      readProjectIds: ["p1"],
    },
  ],
});

function setup() {
  const clock = new ManualClock();
  const keeper = new GateLeaseKeeper({ clock });
  const lease = keeper.grant({ scope: SCOPE, scopeFingerprint: "fp", credentialId: "cred" });
  const request = (overrides: Partial<Parameters<typeof leaseVerdict>[2]> = {}) => ({
    stage: "send" as const,
    leaseId: lease.leaseId,
    environmentId: "env-a",
    destination: "t3://env-a",
    action: "thread.send" as const,
    projectIds: ["p1"],
    ...overrides,
  });
  const check = (stage: Parameters<typeof leaseVerdict>[2]) => leaseVerdict(keeper, clock, stage);
  return { clock, keeper, lease, request, check };
}

describe("GateLeaseKeeper", () => {
  it("opens a 60-minute lease with an opaque id and its facts give the engine’s scope verdict", () => {
    const { lease, request, check } = setup();
    expect(lease.leaseId).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Date.parse(lease.expiresAt) - Date.parse(lease.grantedAt)).toBe(LEASE_TTL_MS);
    expect(check(request())).toEqual({
      ok: true,
      runtimeCeiling: "full-access",
      approvedWorkspaceRoots: ["/w/one"],
    });
    expect(check(request({ projectIds: ["p2"] }))).toMatchObject({ ok: false, code: "scope_denied" });
    expect(check(request({ action: ACTION_IDS.find((id) => id !== "thread.send") }))).toMatchObject({
      code: "scope_denied",
    });
    expect(check(request({ environmentId: "env-b", destination: "t3://env-b" }))).toMatchObject({
      code: "environment_not_in_lease",
    });
    expect(check(request({ leaseId: "someone-else" }))).toMatchObject({ code: "lease_closed" });
  });

  it("expires when the monotonic clock passes 60 minutes even if the wall clock was set back", () => {
    const { clock, keeper, request, check } = setup();
    clock.mono += LEASE_TTL_MS - 1;
    expect(check(request()).ok).toBe(true);
    clock.wall -= 3_600_000;
    clock.mono += 1;
    expect(check(request())).toMatchObject({ code: "lease_closed" });
    expect(keeper.list()).toEqual([]);
  });

  it("expires when the wall clock passes its deadline even if the monotonic clock stood still (suspend)", () => {
    const { clock, request, check } = setup();
    clock.wall += LEASE_TTL_MS;
    expect(check(request())).toMatchObject({ code: "lease_closed" });
  });

  it("tells listeners about grant, expiry and revoke, and counts the remaining time by the nearer deadline", () => {
    const clock = new ManualClock();
    const keeper = new GateLeaseKeeper({ clock });
    const events: string[] = [];
    keeper.onChange(({ open, reason }) => events.push(`${open ? "open" : "closed"}:${reason}`));
    const first = keeper.grant({ scope: SCOPE, scopeFingerprint: "fp", credentialId: "cred" });
    clock.wall += 10 * 60_000;
    expect(keeper.remainingMs(first.leaseId)).toBe(50 * 60_000);
    clock.advance(50 * 60_000);
    expect(keeper.list()).toEqual([]);
    keeper.grant({ scope: SCOPE, scopeFingerprint: "fp", credentialId: "cred" });
    keeper.closeAll("revoked");
    keeper.closeAll("revoked");
    expect(events).toEqual(["open:granted", "closed:expired", "open:granted", "closed:revoked"]);
  });

  it("holds several leases at once, each checked on its own, and ending one leaves the others open", () => {
    const { keeper, lease, request, check } = setup();
    const other = keeper.grant({ scope: SCOPE, scopeFingerprint: "fp-2", credentialId: "cred" });
    expect(keeper.list().map((open) => open.leaseId)).toEqual([lease.leaseId, other.leaseId]);
    const epoch = keeper.epoch;
    expect(keeper.end(lease.leaseId, "ended")).toBe(true);
    expect(check(request())).toMatchObject({ code: "lease_closed" });
    expect(check(request({ leaseId: other.leaseId })).ok).toBe(true);
    // Ending one lease is not a close of everything: approvals in flight keep going.
    expect(keeper.epoch).toBe(epoch);
    expect(keeper.history()[0]).toMatchObject({ leaseId: lease.leaseId, closeReason: "ended" });
    expect(keeper.end(lease.leaseId, "ended")).toBe(false);
  });

  it("finds the lease its holder's secret binds, and no other", () => {
    const keeper = new GateLeaseKeeper({ clock: new ManualClock() });
    keeper.grant({
      scope: SCOPE,
      scopeFingerprint: "fp-1",
      credentialId: "cred",
      holderHash: holderHashOf("secret-a"),
    });
    const held = keeper.grant({
      scope: SCOPE,
      scopeFingerprint: "fp-2",
      credentialId: "cred",
      holderHash: holderHashOf("secret-b"),
    });
    expect(keeper.heldLease("secret-b")?.leaseId).toBe(held.leaseId);
    expect(keeper.heldLease("secret-c")).toBeNull();
    expect(keeper.heldLease(undefined)).toBeNull();
  });

  it("refuses a grant past the open-lease limit, naming it", () => {
    const { keeper } = setup();
    for (let index = 1; index < MAX_OPEN_LEASES; index += 1) {
      keeper.grant({ scope: SCOPE, scopeFingerprint: `fp-${index}`, credentialId: "cred" });
    }
    expect(() => keeper.grant({ scope: SCOPE, scopeFingerprint: "fp-x", credentialId: "cred" })).toThrow(
      expect.objectContaining({ code: "lease_limit_reached", details: { limit: MAX_OPEN_LEASES } }),
    );
  });

  it("ends one lease (an uncertain send's outcome) and aborts the signal a waiting write reads", () => {
    const { keeper, lease, request, check } = setup();
    const other = keeper.grant({ scope: SCOPE, scopeFingerprint: "fp-2", credentialId: "cred" });
    const facts = keeper.facts(lease.leaseId);
    expect(facts?.ended.aborted).toBe(false);
    expect(keeper.end(lease.leaseId, "uncertain_send")).toBe(true);
    // The facts a write already holds say the lease ended: its final check before the send refuses.
    expect(facts?.ended.aborted).toBe(true);
    expect(keeper.facts(lease.leaseId)).toBeNull();
    expect(check(request())).toMatchObject({ code: "lease_closed" });
    expect(keeper.get(other.leaseId)?.leaseId).toBe(other.leaseId);
    expect(keeper.facts(other.leaseId)?.ended.aborted).toBe(false);
  });

  it("lists the writes made under each open lease, capped, and forgets them when it closes", () => {
    const { keeper, lease } = setup();
    const other = keeper.grant({ scope: SCOPE, scopeFingerprint: "fp-2", credentialId: "cred" });
    const write = (leaseId: string, operationId: string) =>
      keeper.recordWrite({
        leaseId,
        at: "2026-12-02T12:00:00.000Z",
        environmentId: "env-a",
        action: "thread.send",
        operationId,
        state: "completed",
      });
    for (let index = 0; index < MAX_LISTED_WRITES + 5; index += 1) write(lease.leaseId, `op-${index}`);
    write(other.leaseId, "other-op");
    expect(keeper.writes(lease.leaseId)).toHaveLength(MAX_LISTED_WRITES);
    expect(keeper.writes(lease.leaseId)[0]?.operationId).toBe("op-5");
    expect(keeper.writes(other.leaseId).map((row) => row.operationId)).toEqual(["other-op"]);
    keeper.closeAll("revoked");
    expect(keeper.writes(lease.leaseId)).toEqual([]);
    write(lease.leaseId, "late");
    expect(keeper.writes(lease.leaseId)).toEqual([]);
  });
});
