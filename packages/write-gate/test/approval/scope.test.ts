import { ACTION_IDS, type LeaseScope, leaseScopeSchema } from "@t3-connector/write-engine/actions";
import { describe, expect, it } from "vitest";
import {
  grantFromShell,
  narrowScope,
  requestFingerprint,
  scopeFingerprint,
} from "../../src/approval/index.js";

function scopeOf(...aliases: string[]): LeaseScope {
  return {
    scopeVersion: 2,
    runtimeMode: "full-access",
    environments: aliases.map((alias) => {
      const grant = grantFromShell({ alias, environmentId: `id-${alias}` }, [
        { id: "p1", title: "one", workspaceRoot: "/w/one" },
        { id: "p2", title: "two", workspaceRoot: "/w/two" },
      ]);
      if (grant === null) throw new Error("no grant");
      return grant;
    }),
  };
}

describe("grantFromShell", () => {
  it("keeps live projects with an absolute root, sorted by id, falling back to cwd", () => {
    const grant = grantFromShell({ alias: "a", environmentId: "e" }, [
      { id: "z", title: "Z", workspaceRoot: "/z" },
      { id: "gone", title: "Gone", workspaceRoot: "/gone", deletedAt: "2026-01-01T00:00:00Z" },
      { id: "relative", title: "Rel", workspaceRoot: "work/rel" },
      { id: "b", title: "B", cwd: "/from-cwd" },
    ]);
    expect(grant?.projects).toEqual([
      { id: "b", name: "B", directory: "/from-cwd", workspaceRoots: ["/from-cwd"] },
      { id: "z", name: "Z", directory: "/z", workspaceRoots: ["/z"] },
    ]);
    expect(grant?.readProjectIds).toEqual(["b", "z"]);
    expect(grant?.actions).toHaveLength(ACTION_IDS.length);
    expect(
      leaseScopeSchema.safeParse({ scopeVersion: 2, runtimeMode: "full-access", environments: [grant] })
        .success,
    ).toBe(true);
  });

  it("answers null when no project is usable", () => {
    expect(grantFromShell({ alias: "a", environmentId: "e" }, [{ id: "x", title: "X" }])).toBeNull();
  });
});

describe("narrowScope", () => {
  it("keeps exactly the selected environments, projects and actions", () => {
    const scope = scopeOf("alpha", "beta");
    const narrowed = narrowScope(scope, {
      environments: [
        { environmentId: "id-beta", projectIds: ["p2"], actions: ["thread.send", "run.interrupt"] },
      ],
    });
    expect(narrowed?.environments).toEqual([
      expect.objectContaining({
        alias: "beta",
        projects: [{ id: "p2", name: "two", directory: "/w/two", workspaceRoots: ["/w/two"] }],
        actions: ["run.interrupt", "thread.send"],
        readProjectIds: ["p2"],
      }),
    ]);
    expect(scopeFingerprint(narrowed as LeaseScope)).not.toBe(scopeFingerprint(scope));
  });

  it.each([
    [
      "an environment outside the request",
      { environmentId: "id-gamma", projectIds: ["p1"], actions: ["thread.send"] },
    ],
    [
      "a project outside the request",
      { environmentId: "id-alpha", projectIds: ["p9"], actions: ["thread.send"] },
    ],
    ["an unknown action", { environmentId: "id-alpha", projectIds: ["p1"], actions: ["thread.nuke"] }],
    ["no project", { environmentId: "id-alpha", projectIds: [], actions: ["thread.send"] }],
    ["no action", { environmentId: "id-alpha", projectIds: ["p1"], actions: [] }],
  ])("refuses %s", (_name, environment) => {
    expect(narrowScope(scopeOf("alpha"), { environments: [environment] })).toBeNull();
  });

  it("refuses the same environment twice", () => {
    const once = { environmentId: "id-alpha", projectIds: ["p1"], actions: ["thread.send"] };
    expect(narrowScope(scopeOf("alpha"), { environments: [once, once] })).toBeNull();
  });

  it("has a stable fingerprint whatever order the keys were built in", () => {
    const scope = scopeOf("alpha");
    const reordered = JSON.parse(
      JSON.stringify({ environments: scope.environments, runtimeMode: "full-access", scopeVersion: 2 }),
    );
    expect(scopeFingerprint(reordered)).toBe(scopeFingerprint(scope));
  });
});

describe("requestFingerprint", () => {
  const scope = scopeOf("alpha");
  const facts = {
    requestId: "request-1",
    expiresAt: "2026-12-04T16:00:00.000Z",
    leaseMinutes: 60,
    purpose: "pin the release thread",
    client: { name: "Claude", version: "1.0" },
  };

  it("differs for requests that differ only in purpose, client, expiry or ceiling", () => {
    const base = requestFingerprint(facts, scope);
    expect(requestFingerprint({ ...facts, purpose: "archive everything" }, scope)).not.toBe(base);
    expect(requestFingerprint({ ...facts, client: { name: "ChatGPT" } }, scope)).not.toBe(base);
    const { client: _client, ...unnamed } = facts;
    expect(requestFingerprint(unnamed, scope)).not.toBe(base);
    expect(requestFingerprint({ ...facts, expiresAt: "2026-12-04T16:00:00.001Z" }, scope)).not.toBe(base);
    expect(requestFingerprint({ ...facts, leaseMinutes: 30 }, scope)).not.toBe(base);
    expect(requestFingerprint({ ...facts, requestId: "request-2" }, scope)).not.toBe(base);
    const lower = { ...scope, runtimeMode: "approval-required" as const };
    expect(requestFingerprint(facts, lower)).not.toBe(base);
    // The same request and scope always give the same fingerprint.
    expect(requestFingerprint({ ...facts }, scope)).toBe(base);
  });
});
