import { ACTION_IDS, type LeaseScope, parseLeaseScope } from "@t3-connector/write-engine/actions";
import { describe, expect, it } from "vitest";
import { GateLeaseKeeper, LEASE_TTL_MS, MAX_LISTED_WRITES } from "../../src/lease/index.js";
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
    expect(keeper.check(request())).toEqual({ ok: true, approvedWorkspaceRoots: ["/w/one"] });
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
    expect(keeper.current()).toBeNull();
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
    keeper.onChange((lease, reason) => events.push(`${lease === null ? "closed" : "open"}:${reason}`));
    keeper.grant({ scope: SCOPE, scopeFingerprint: "fp", credentialId: "cred" });
    clock.wall += 10 * 60_000;
    expect(keeper.remainingMs()).toBe(50 * 60_000);
    clock.advance(50 * 60_000);
    expect(keeper.current()).toBeNull();
    keeper.grant({ scope: SCOPE, scopeFingerprint: "fp", credentialId: "cred" });
    keeper.closeAll("revoked");
    keeper.closeAll("revoked");
    expect(events).toEqual(["open:granted", "closed:expired", "open:granted", "closed:revoked"]);
  });

  it("closes on an uncertain send and refuses a second grant while one is open", () => {
    const { keeper, request } = setup();
    expect(() => keeper.grant({ scope: SCOPE, scopeFingerprint: "fp", credentialId: "cred" })).toThrow();
    const epoch = keeper.epoch;
    keeper.onUncertainSend({} as never);
    expect(keeper.check(request())).toMatchObject({ code: "lease_closed" });
    expect(keeper.epoch).toBeGreaterThan(epoch);
  });

  it("lists the writes made under the open lease, capped, and forgets them when it closes", () => {
    const { keeper } = setup();
    for (let index = 0; index < MAX_LISTED_WRITES + 5; index += 1) {
      keeper.recordWrite({
        at: "2026-12-02T12:00:00.000Z",
        environmentId: "env-a",
        action: "thread.send",
        operationId: `op-${index}`,
        state: "completed",
      });
    }
    expect(keeper.writes()).toHaveLength(MAX_LISTED_WRITES);
    expect(keeper.writes()[0]?.operationId).toBe("op-5");
    keeper.closeAll("revoked");
    expect(keeper.writes()).toEqual([]);
    keeper.recordWrite({
      at: "x",
      environmentId: "env-a",
      action: "thread.send",
      operationId: "late",
      state: "completed",
    });
    expect(keeper.writes()).toEqual([]);
  });
});
