import { describe, expect, it } from "vitest";
import {
  approvedWorkspaceRoots,
  findGrant,
  grantAllows,
  leaseScopeSchema,
  parseLeaseScope,
  scopeRequestSchema,
} from "../../src/actions/index.js";

const ENV = "8a83a2ed-157d-4eaa-96d9-b12040a490d5";
function grant(overrides: Record<string, unknown> = {}) {
  return {
    alias: "local",
    environmentId: ENV,
    label: "local",
    destination: `t3://${ENV}`,
    projects: [
      { id: "p-a", name: "Alpha", directory: "/srv/alpha", workspaceRoots: ["/srv/alpha", "/srv/alpha-wt"] },
      { id: "p-b", name: "Beta", directory: "/srv/beta", workspaceRoots: ["/srv/beta"] },
    ],
    actions: ["thread.pin", "thread.send", "thread.settle"],
    readProjectIds: ["p-a", "p-b"],
    ...overrides,
  };
}
function scope(environments: unknown[] = [grant()]) {
  return { scopeVersion: 2, runtimeMode: "full-access", environments };
}

describe("lease scope", () => {
  it("accepts a well-formed scope", () => {
    expect(leaseScopeSchema.safeParse(scope()).success).toBe(true);
  });

  it("refuses another version, runtime mode, an empty list or unknown keys", () => {
    expect(leaseScopeSchema.safeParse({ ...scope(), scopeVersion: 1 }).success).toBe(false);
    // runtimeMode is the lease's ceiling (ADR 0022): any of T3's four modes, nothing else.
    expect(leaseScopeSchema.safeParse({ ...scope(), runtimeMode: "auto" }).success).toBe(true);
    expect(leaseScopeSchema.safeParse({ ...scope(), runtimeMode: "yolo" }).success).toBe(false);
    expect(leaseScopeSchema.safeParse(scope([])).success).toBe(false);
    expect(leaseScopeSchema.safeParse({ ...scope(), ambientes: [] }).success).toBe(false);
    expect(leaseScopeSchema.safeParse(scope([grant({ acoes: [] })])).success).toBe(false);
  });

  it("refuses unknown actions, unsorted or duplicate lists and a wrong destination", () => {
    expect(leaseScopeSchema.safeParse(scope([grant({ actions: ["thread.nope"] })])).success).toBe(false);
    expect(
      leaseScopeSchema.safeParse(scope([grant({ actions: ["thread.send", "thread.pin"] })])).success,
    ).toBe(false);
    expect(leaseScopeSchema.safeParse(scope([grant({ actions: [] })])).success).toBe(false);
    expect(leaseScopeSchema.safeParse(scope([grant({ readProjectIds: ["p-b", "p-a"] })])).success).toBe(
      false,
    );
    expect(leaseScopeSchema.safeParse(scope([grant({ destination: "t3://other" })])).success).toBe(false);
    const [a, b] = grant().projects;
    expect(leaseScopeSchema.safeParse(scope([grant({ projects: [b, a] })])).success).toBe(false);
    expect(leaseScopeSchema.safeParse(scope([grant({ projects: [] })])).success).toBe(false);
  });

  it("refuses relative workspace roots and roots that miss the directory", () => {
    const bad = { id: "p-a", name: "A", directory: "/srv/a", workspaceRoots: ["srv/a"] };
    expect(leaseScopeSchema.safeParse(scope([grant({ projects: [bad] })])).success).toBe(false);
    const missing = { id: "p-a", name: "A", directory: "/srv/a", workspaceRoots: ["/srv/b"] };
    expect(leaseScopeSchema.safeParse(scope([grant({ projects: [missing] })])).success).toBe(false);
  });

  it("needs grants sorted by alias with unique environmentIds", () => {
    const remote = grant({ alias: "remote", label: "remote" });
    expect(leaseScopeSchema.safeParse(scope([grant(), remote])).success).toBe(false);
    const other = "11111111-2222-4333-8444-555555555555";
    const remoteOk = grant({
      alias: "remote",
      label: "remote",
      environmentId: other,
      destination: `t3://${other}`,
    });
    expect(leaseScopeSchema.safeParse(scope([grant(), remoteOk])).success).toBe(true);
    expect(leaseScopeSchema.safeParse(scope([remoteOk, grant()])).success).toBe(false);
  });

  it("adds duration and caller to an approval request", () => {
    const request = { ...scope(), durationMinutes: 60, caller: "channel:org|securetunnel:tunnel_x" };
    expect(scopeRequestSchema.safeParse(request).success).toBe(true);
    expect(scopeRequestSchema.safeParse({ ...request, durationMinutes: 120 }).success).toBe(false);
  });

  it("answers the gate's scope questions", () => {
    const parsed = parseLeaseScope(scope());
    const found = findGrant(parsed, ENV, `t3://${ENV}`);
    expect(found?.alias).toBe("local");
    expect(findGrant(parsed, ENV, "t3://elsewhere")).toBeUndefined();
    if (found === undefined) return;
    expect(grantAllows(found, "thread.send", ["p-a"])).toBe(true);
    expect(grantAllows(found, "thread.send", ["p-a", "p-c"])).toBe(false);
    expect(grantAllows(found, "thread.delete", ["p-a"])).toBe(false);
    expect(grantAllows(found, "thread.send", [])).toBe(false);
    expect(approvedWorkspaceRoots(found, ["p-a"])).toEqual(["/srv/alpha", "/srv/alpha-wt"]);
    expect(approvedWorkspaceRoots(found)).toHaveLength(3);
  });
});
