import { ManualDeadlines } from "@t3-connector/test-support/manual-deadlines";
import { type SimGate, startSimGate } from "@t3-connector/test-support/sim-gate";
import { ACTION_IDS } from "@t3-connector/write-engine/actions";
import { afterEach, describe, expect, it } from "vitest";
import {
  MAX_PENDING_PER_CLIENT,
  MAX_PENDING_REQUESTS,
  REQUEST_TTL_MS,
  registryInventory,
} from "../../src/approval/index.js";

let gate: SimGate | undefined;
afterEach(async () => {
  await gate?.close();
  gate = undefined;
});

const PROJECTS = [
  { id: "p-zeta", title: "Zeta", workspaceRoot: "/srv/zeta" },
  { id: "p-alpha", title: "Alpha", workspaceRoot: "/srv/alpha" },
];

describe("GateApprovalDesk.request", () => {
  it("builds the request from each environment's live shell with every catalogue action", async () => {
    gate = await startSimGate({
      environments: [
        { alias: "beta", projects: [{ id: "p-b", title: "B", workspaceRoot: "/srv/b" }] },
        { alias: "alpha", projects: PROJECTS },
      ],
    });
    const link = await gate.desk.request({});
    expect(link.url).toBe(`http://localhost:${gate.port}/?request=${link.requestId}`);
    expect(link.requestId).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(link.leftOut).toEqual([]);
    const view = gate.desk.view(link.requestId);
    expect(view.scope.environments.map((grant) => grant.alias)).toEqual(["alpha", "beta"]);
    const alpha = view.scope.environments[0];
    expect(alpha?.projects.map((project) => project.id)).toEqual(["p-alpha", "p-zeta"]);
    expect(alpha?.destination).toBe(`t3://${gate.sim.environment("alpha").environmentId}`);
    expect(alpha?.actions).toEqual([...ACTION_IDS].sort());
    expect(view.scopeFingerprint).toMatch(/^[0-9a-f]{64}$/);

    // A project created after the request enters only with a new request.
    gate.sim.environment("alpha").model.addProject({ id: "p-new", title: "New", workspaceRoot: "/srv/new" });
    expect(gate.desk.view(link.requestId).scope.environments[0]?.projects).toHaveLength(2);
    const next = await gate.desk.request({});
    expect(
      gate.desk.view(next.requestId).scope.environments[0]?.projects.map((project) => project.id),
    ).toContain("p-new");
  });

  it("leaves out an environment that is down or has no projects, saying why", async () => {
    gate = await startSimGate({
      environments: [
        { alias: "alpha", projects: PROJECTS },
        { alias: "empty", projects: [] },
        { alias: "down", projects: PROJECTS },
      ],
    });
    await gate.sim.environment("down").stop();
    const link = await gate.desk.request({});
    expect(link.covered.map((grant) => grant.alias)).toEqual(["alpha"]);
    expect(link.leftOut).toEqual([
      { alias: "empty", environmentId: gate.sim.environment("empty").environmentId, reason: "no_projects" },
      {
        alias: "down",
        environmentId: gate.sim.environment("down").environmentId,
        reason: "environment_unavailable",
      },
    ]);
    // Proposing only environments that are down is no error: they are known, just left out, and tick nothing.
    const downOnly = await gate.desk.request({ environments: ["down", "empty"] });
    expect(gate.desk.view(downOnly.requestId).preselected).toEqual({ environments: [] });
    await gate.sim.environment("alpha").stop();
    await expect(gate.desk.request({})).rejects.toMatchObject({ code: "environment_unavailable" });
  });

  it("leaves out an environment that does not answer within its inventory deadline as timeout", async () => {
    gate = await startSimGate({
      environments: [
        { alias: "alpha", projects: PROJECTS },
        { alias: "stuck", projects: PROJECTS },
      ],
    });
    const stuck = gate.sim.environment("stuck");
    stuck.faults.set({ hang: true });
    // The stalled environment's deadline expires once it holds the request, never by real time:
    // alpha answers on its own schedule, however loaded the machine.
    const deadlines = new ManualDeadlines();
    const held = new Promise<void>((resolve) => {
      const stop = stuck.faults.onHeld(() => {
        stop();
        resolve();
      });
    });
    const inventory = registryInventory(gate.registry, { timeoutMs: 200, deadlines });
    const outcomes = await deadlines.timingOut("stuck", () => inventory(undefined), held);
    expect(outcomes.map((outcome) => (outcome.ok ? "ok" : outcome.leftOut.reason))).toEqual([
      "ok",
      "timeout",
    ]);
    // Each environment's deadline is cleared once its inventory ends.
    expect(deadlines.running("alpha")).toBe(0);
    stuck.faults.clear();
  });

  it("times out a stalled environment on the real timer by default", async () => {
    gate = await startSimGate({ environments: [{ alias: "stuck", projects: PROJECTS }] });
    gate.sim.environment("stuck").faults.set({ hang: true });
    // Only the stalled environment is asked, so nothing healthy races the short real deadline.
    const outcomes = await registryInventory(gate.registry, { timeoutMs: 200 })(["stuck"]);
    expect(outcomes).toEqual([
      { ok: false, leftOut: { alias: "stuck", environmentId: expect.any(String), reason: "timeout" } },
    ]);
    gate.sim.environment("stuck").faults.clear();
  });

  it("covers every live environment and ticks only the ones proposed, by alias or environmentId", async () => {
    gate = await startSimGate({
      environments: [
        { alias: "alpha", projects: PROJECTS },
        { alias: "beta", projects: [{ id: "p-b", title: "B", workspaceRoot: "/srv/b" }] },
      ],
    });
    const ticked = (requestId: string) =>
      gate?.desk.view(requestId).preselected.environments.map((chosen) => chosen.environmentId);
    const byAlias = await gate.desk.request({ environments: ["beta"] });
    expect(byAlias.covered.map((grant) => grant.alias)).toEqual(["alpha", "beta"]);
    expect(ticked(byAlias.requestId)).toEqual([gate.sim.environment("beta").environmentId]);
    const byId = await gate.desk.request({ environments: [gate.sim.environment("alpha").environmentId] });
    expect(ticked(byId.requestId)).toEqual([gate.sim.environment("alpha").environmentId]);
  });

  it("keeps a request 120 s and at most 32 pending in all", async () => {
    gate = await startSimGate({ environments: [{ alias: "alpha", projects: PROJECTS }] });
    const ask = (index: number) => ({ client: { name: `client-${index}` } });
    const first = await gate.desk.request(ask(0));
    for (let index = 1; index < MAX_PENDING_REQUESTS; index += 1) await gate.desk.request(ask(index));
    await expect(gate.desk.request(ask(99))).rejects.toMatchObject({ code: "too_many_in_flight" });
    gate.clock.offsetMs += REQUEST_TTL_MS;
    expect(() => gate?.desk.view(first.requestId)).toThrow(
      expect.objectContaining({ code: "request_expired" }),
    );
    expect(gate.desk.pendingCount).toBe(0);
    await expect(gate.desk.request({})).resolves.toMatchObject({ leftOut: [] });
  });

  it("counts pending requests per client: one over its budget is refused naming the limit, another still asks", async () => {
    gate = await startSimGate({ environments: [{ alias: "alpha", projects: PROJECTS }] });
    const greedy = { client: { name: "greedy" } };
    for (let index = 0; index < MAX_PENDING_PER_CLIENT; index += 1) await gate.desk.request(greedy);
    const refused = await gate.desk.request(greedy).catch((error: unknown) => error);
    expect(refused).toMatchObject({
      code: "client_budget_exceeded",
      details: { budget: "pending_requests", limit: MAX_PENDING_PER_CLIENT },
    });
    expect(String((refused as Error).message)).toContain(String(MAX_PENDING_PER_CLIENT));
    // Refused before anything was kept, and another client is untouched by the greedy one.
    expect(gate.desk.pendingCount).toBe(MAX_PENDING_PER_CLIENT);
    await expect(gate.desk.request({ client: { name: "polite" } })).resolves.toMatchObject({ leftOut: [] });
    await expect(gate.desk.request({ bridge: "bridge-polite-1" })).resolves.toMatchObject({ leftOut: [] });
  });

  it("gives two requests different fingerprints when they differ only in purpose or only in client", async () => {
    gate = await startSimGate({ environments: [{ alias: "alpha", projects: PROJECTS }] });
    const base = await gate.desk.request({ purpose: "pin it", client: { name: "A" } });
    const otherPurpose = await gate.desk.request({ purpose: "archive it", client: { name: "A" } });
    const otherClient = await gate.desk.request({ purpose: "pin it", client: { name: "B" } });
    const fingerprints = new Set([base, otherPurpose, otherClient].map((link) => link.scopeFingerprint));
    expect(fingerprints.size).toBe(3);
    // The page shows the same fingerprint the client was given.
    expect(gate.desk.view(base.requestId).scopeFingerprint).toBe(base.scopeFingerprint);
  });

  it("drops every pending request when the gate closes the lease", async () => {
    gate = await startSimGate({ environments: [{ alias: "alpha", projects: PROJECTS }] });
    const link = await gate.desk.request({});
    gate.keeper.closeAll("audit_failed");
    expect(() => gate?.desk.view(link.requestId)).toThrow(
      expect.objectContaining({ code: "request_superseded" }),
    );
  });

  it("refuses a challenge before any passkey is enrolled, without using up the request", async () => {
    gate = await startSimGate({ environments: [{ alias: "alpha", projects: PROJECTS }] });
    const link = await gate.desk.request({});
    await expect(gate.desk.challenge(link.requestId, undefined)).rejects.toMatchObject({
      code: "enrollment_required",
    });
    expect(gate.desk.view(link.requestId).requestId).toBe(link.requestId);
    await expect(gate.desk.approve(link.requestId, {} as never)).rejects.toMatchObject({
      code: "challenge_invalid",
    });
  });

  it("refuses ids that are not request ids", async () => {
    gate = await startSimGate({ environments: [{ alias: "alpha", projects: PROJECTS }] });
    for (const id of ["", "x", "../../etc", "A".repeat(44)]) {
      expect(() => gate?.desk.view(id)).toThrow(expect.objectContaining({ code: "request_invalid" }));
    }
  });
});
