import { ACTION_IDS, type LeaseScope, parseLeaseScope } from "@t3-connector/write-engine/actions";
import { describe, expect, it } from "vitest";
import {
  GateLeaseKeeper,
  holderHashOf,
  LEASE_TTL_MS,
  MAX_LISTED_WRITES,
  MAX_OPEN_LEASES,
} from "../../src/lease/index.js";
import { ManualClock } from "../security/support/gate.js";

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
  const request = (overrides: Partial<Parameters<GateLeaseKeeper["check"]>[0]> = {}) => ({
    stage: "send" as const,
    leaseId: lease.leaseId,
    environmentId: "env-a",
    destination: "t3://env-a",
    action: "thread.send" as const,
    projectIds: ["p1"],
    ...overrides,
  });
  return { clock, keeper, lease, request };
}

describe("GateLeaseKeeper", () => {
  it("opens a 60-minute lease with an opaque id and checks requests with core's scope verdict", () => {
    const { keeper, lease, request } = setup();
    expect(lease.leaseId).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Date.parse(lease.expiresAt) - Date.parse(lease.grantedAt)).toBe(LEASE_TTL_MS);
    expect(keeper.check(request())).toEqual({
      ok: true,
      runtimeCeiling: "full-access",
      approvedWorkspaceRoots: ["/w/one"],
    });
    expect(keeper.check(request({ projectIds: ["p2"] }))).toMatchObject({ ok: false, code: "scope_denied" });
    expect(keeper.check(request({ action: ACTION_IDS.find((id) => id !== "thread.send") }))).toMatchObject({
      code: "scope_denied",
    });
    expect(keeper.check(request({ environmentId: "env-b", destination: "t3://env-b" }))).toMatchObject({
      code: "environment_not_in_lease",
    });
    expect(keeper.check(request({ leaseId: "someone-else" }))).toMatchObject({ code: "lease_closed" });
  });

  it("expires when the monotonic clock passes 60 minutes even if the wall clock was set back", () => {
    const { clock, keeper, request } = setup();
    clock.mono += LEASE_TTL_MS - 1;
    expect(keeper.check(request()).ok).toBe(true);
    clock.wall -= 3_600_000;
    clock.mono += 1;
    expect(keeper.check(request())).toMatchObject({ code: "lease_closed" });
    expect(keeper.list()).toEqual([]);
  });

  it("expires when the wall clock passes its deadline even if the monotonic clock stood still (suspend)", () => {
    const { clock, keeper, request } = setup();
    clock.wall += LEASE_TTL_MS;
    expect(keeper.check(request())).toMatchObject({ code: "lease_closed" });
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
    const { keeper, lease, request } = setup();
    const other = keeper.grant({ scope: SCOPE, scopeFingerprint: "fp-2", credentialId: "cred" });
    expect(keeper.list().map((open) => open.leaseId)).toEqual([lease.leaseId, other.leaseId]);
    const epoch = keeper.epoch;
    expect(keeper.end(lease.leaseId, "ended")).toBe(true);
    expect(keeper.check(request())).toMatchObject({ code: "lease_closed" });
    expect(keeper.check(request({ leaseId: other.leaseId })).ok).toBe(true);
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

  it("closes the lease an uncertain send was made under, and only that one", () => {
    const { keeper, lease, request } = setup();
    const other = keeper.grant({ scope: SCOPE, scopeFingerprint: "fp-2", credentialId: "cred" });
    keeper.onUncertainSend({ leaseId: lease.leaseId } as never);
    expect(keeper.check(request())).toMatchObject({ code: "lease_closed" });
    expect(keeper.get(other.leaseId)?.leaseId).toBe(other.leaseId);
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
