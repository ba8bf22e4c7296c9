/**
 * The approval page's API over real sockets: what a request shows (proposal,
 * first ticks, words for actions), deny, why a dead request is dead, the state's rows and history.
 * The gate runs over a real simulator; the page calls are real HTTP POSTs with the gate's Origin.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { postJson } from "@t3-connector/test-support/gate-http";
import { type SimGate, startSimGate } from "@t3-connector/test-support/sim-gate";
import { ACTIONS, DESTRUCTIVE_ACTIONS } from "@t3-connector/write-engine/actions";
import { afterEach, describe, expect, it } from "vitest";
import { REQUEST_TTL_MS } from "../../src/approval/index.js";
import { AUDIT_FILE } from "../../src/audit/index.js";

let gate: SimGate | undefined;
afterEach(async () => {
  await gate?.close();
  gate = undefined;
});

const ALPHA_PROJECTS = [
  { id: "p-release", title: "Release", workspaceRoot: "/srv/release" },
  { id: "p-docs", title: "Docs", workspaceRoot: "/srv/docs" },
];
const RELEASE_THREAD = "thread-release-notes";
const ENROLLED = [
  {
    id: "cred-named",
    publicKey: "AA",
    counter: 0,
    createdAt: "2026-12-01T10:00:00.000Z",
    name: "Work laptop",
  },
  { id: "cred-old", publicKey: "AA", counter: 0, createdAt: "2026-11-01T10:00:00.000Z" },
];

async function startGate(): Promise<SimGate> {
  gate = await startSimGate({
    serve: true,
    credentials: ENROLLED,
    environments: [
      {
        alias: "alpha",
        projects: ALPHA_PROJECTS,
        threads: [{ id: RELEASE_THREAD, projectId: "p-release", title: "Release notes" }],
      },
      { alias: "beta", projects: [{ id: "p-beta", title: "Beta", workspaceRoot: "/srv/beta" }] },
    ],
  });
  return gate;
}

type Body = Record<string, unknown>;
async function page(path: string, body: unknown = {}): Promise<{ status: number; body: Body }> {
  if (gate === undefined) throw new Error("no gate");
  const answer = await postJson(gate.port, path, body, { origin: gate.origin });
  return { status: answer.status, body: answer.body as Body };
}

/** What the page ticks unasked: neither a destructive action nor one that names a folder (ADR 0074). */
const nonDestructive = (actions: readonly string[]) =>
  actions.filter(
    (action) =>
      !DESTRUCTIVE_ACTIONS.includes(action as never) &&
      action !== "project.create" &&
      action !== "project.meta.update",
  );

describe("POST /api/requests/view", () => {
  it("with no proposal ticks every environment and project and only the non-destructive actions", async () => {
    const g = await startGate();
    const link = await g.desk.request({});
    const view = await page("/api/requests/view", { requestId: link.requestId });
    expect(view.status).toBe(200);
    const scope = view.body.scope as { environments: { environmentId: string; actions: string[] }[] };
    const preselected = view.body.preselected as {
      environments: { environmentId: string; projectIds: string[]; actions: string[] }[];
    };
    expect(preselected.environments.map((chosen) => chosen.environmentId)).toEqual(
      scope.environments.map((grant) => grant.environmentId),
    );
    expect(preselected.environments[0]?.projectIds).toEqual(["p-docs", "p-release"]);
    for (const [index, chosen] of preselected.environments.entries()) {
      expect(chosen.actions).toEqual(nonDestructive(scope.environments[index]?.actions ?? []));
      for (const destructive of DESTRUCTIVE_ACTIONS) expect(chosen.actions).not.toContain(destructive);
    }
    expect(view.body).not.toHaveProperty("purpose");
    expect(view.body).not.toHaveProperty("proposal");
    // Every action of the scope in catalogue order, in words a person reads.
    const info = view.body.actionInfo as { action: string; label: string; group: string }[];
    expect(info.map((entry) => entry.action)).toEqual(ACTIONS.map((entry) => entry.action));
    expect(info.find((entry) => entry.action === "thread.delete")).toMatchObject({
      label: "Delete a thread",
      group: "destructive",
    });
    expect(Math.abs(Date.parse(view.body.serverNow as string) - g.clock.now())).toBeLessThan(5_000);
  });

  it("ticks only what was proposed, a destructive action only when proposed, and shows the cleaned purpose and client", async () => {
    const g = await startGate();
    const link = await g.desk.request({
      purpose: "pin the release\u0007 thread\u202e <b>now</b>",
      client: { name: "Claude Code", version: "2.1.0" },
      actions: ["thread.pin", "thread.delete"],
      threads: [RELEASE_THREAD],
    });
    const view = await page("/api/requests/view", { requestId: link.requestId });
    const alpha = g.sim.environment("alpha").environmentId;
    expect(view.body.preselected).toEqual({
      environments: [
        { environmentId: alpha, projectIds: ["p-release"], actions: ["thread.delete", "thread.pin"] },
      ],
    });
    // Control characters and direction overrides are gone; markup stays text for the page to escape.
    expect(view.body.purpose).toBe("pin the release thread <b>now</b>");
    expect(view.body.client).toEqual({ name: "Claude Code", version: "2.1.0" });
    expect(view.body.proposal).toEqual({
      actions: ["thread.pin", "thread.delete"],
      threads: [RELEASE_THREAD],
    });

    const onlyPin = await g.desk.request({ actions: ["thread.pin"], environments: ["beta"] });
    const pinView = await page("/api/requests/view", { requestId: onlyPin.requestId });
    expect(pinView.body.preselected).toEqual({
      environments: [
        {
          environmentId: g.sim.environment("beta").environmentId,
          projectIds: ["p-beta"],
          actions: ["thread.pin"],
        },
      ],
    });
  });

  it("refuses a proposal that names what the live inventory does not list, saying what is valid, and keeps nothing", async () => {
    const g = await startGate();
    const before = g.desk.pendingCount;
    const refusal = g.desk.request({
      environments: ["gamma"],
      projects: ["p-nowhere"],
      actions: ["thread.pin", "thread.explode"],
      threads: ["thread-ghost"],
    });
    await expect(refusal).rejects.toMatchObject({
      code: "proposal_invalid",
      details: {
        unknown: {
          environments: ["gamma"],
          projects: ["p-nowhere"],
          actions: ["thread.explode"],
          threads: ["thread-ghost"],
        },
        valid: { environments: ["alpha", "beta"], projects: ["p-docs", "p-release", "p-beta"] },
      },
    });
    await expect(refusal).rejects.toThrow(/Valid environments: alpha, beta/);
    expect(g.desk.pendingCount).toBe(before);
  });
});

describe("dead approval requests", () => {
  it("deny answers denied, kills the request with 410 request_denied and tells a waiting client at once", async () => {
    const g = await startGate();
    const link = await g.desk.request({});
    const waiting = g.desk.wait(link.requestId, 60_000);
    const denied = await page("/api/requests/deny", { requestId: link.requestId });
    expect(denied).toEqual({ status: 200, body: { denied: true } });
    await expect(waiting).resolves.toEqual({ outcome: "denied" });
    expect(await page("/api/requests/view", { requestId: link.requestId })).toEqual({
      status: 410,
      body: { error: "request_denied" },
    });
    expect((await page("/api/requests/deny", { requestId: link.requestId })).status).toBe(410);
    expect(await page("/api/requests/options", { requestId: link.requestId })).toMatchObject({ status: 410 });
    expect(g.keeper.list()).toEqual([]);
    await g.audit.settled();
    const audit = await readFile(join(g.stateDir, AUDIT_FILE), "utf8");
    expect(audit).toContain(`"event":"approval_denied","requestId":"${link.requestId}"`);
  });

  it("says expired after the request's 120 s (injected clock), 404 request_invalid for an id never issued", async () => {
    const g = await startGate();
    const link = await g.desk.request({});
    g.clock.offsetMs += REQUEST_TTL_MS;
    expect(await page("/api/requests/view", { requestId: link.requestId })).toEqual({
      status: 410,
      body: { error: "request_expired" },
    });
    await expect(g.desk.wait(link.requestId, 1_000)).resolves.toEqual({ outcome: "expired" });
    expect(await page("/api/requests/view", { requestId: "Q".repeat(43) })).toEqual({
      status: 404,
      body: { error: "request_invalid" },
    });
  });

  it("says superseded when the same bridge asks again, and leaves another bridge's request alone", async () => {
    const g = await startGate();
    const first = await g.desk.request({ bridge: "bridge-one-0001" });
    const other = await g.desk.request({ bridge: "bridge-two-0002" });
    const waiting = g.desk.wait(first.requestId, 60_000);
    const second = await g.desk.request({ bridge: "bridge-one-0001" });
    await expect(waiting).resolves.toEqual({ outcome: "superseded" });
    expect(await page("/api/requests/view", { requestId: first.requestId })).toEqual({
      status: 410,
      body: { error: "request_superseded" },
    });
    expect((await page("/api/requests/view", { requestId: second.requestId })).status).toBe(200);
    expect((await page("/api/requests/view", { requestId: other.requestId })).status).toBe(200);
  });

  it("says used after an approval attempt consumed the request, even when the assertion failed", async () => {
    const g = await startGate();
    const link = await g.desk.request({});
    const waiting = g.desk.wait(link.requestId, 60_000);
    expect((await page("/api/requests/options", { requestId: link.requestId })).status).toBe(200);
    const forged = { id: "cred-named", rawId: "cred-named", type: "public-key", response: {} };
    const failed = await page("/api/requests/approve", { requestId: link.requestId, response: forged });
    expect(failed).toEqual({ status: 400, body: { error: "assertion_invalid" } });
    await expect(waiting).resolves.toEqual({ outcome: "used" });
    expect(await page("/api/requests/view", { requestId: link.requestId })).toEqual({
      status: 410,
      body: { error: "request_used" },
    });
    await g.audit.settled();
    const audit = await readFile(join(g.stateDir, AUDIT_FILE), "utf8");
    expect(audit).toContain(
      `"event":"approval_failed","requestId":"${link.requestId}","code":"assertion_invalid"`,
    );
  });

  it("answers pending when a wait runs out before anyone decides", async () => {
    const g = await startGate();
    const link = await g.desk.request({});
    await expect(g.desk.wait(link.requestId, 50)).resolves.toEqual({ outcome: "pending" });
    expect(g.desk.link(link.requestId)).toMatchObject({ requestId: link.requestId, url: link.url });
  });
});

describe("POST /api/state", () => {
  it("lists pending requests with purpose and client, passkeys by name, the lease's writes as rows and the last closed leases", async () => {
    const g = await startGate();
    const link = await g.desk.request({ purpose: "rename the docs", client: { name: "Cursor" } });
    const initial = await page("/api/state");
    expect(initial.body.pendingRequests).toEqual([
      {
        requestId: link.requestId,
        purpose: "rename the docs",
        client: { name: "Cursor" },
        expiresAt: link.expiresAt,
      },
    ]);
    expect(initial.body.passkeys).toEqual([
      expect.objectContaining({
        credentialId: "cred-named",
        name: "Work laptop",
        createdAt: "2026-12-01T10:00:00.000Z",
      }),
      expect.objectContaining({ credentialId: "cred-old", name: "Passkey" }),
    ]);
    expect(initial.body.leaseHistory).toEqual([]);

    // A lease opened by the keeper itself (the passkey ceremony is the browser tests' business).
    const view = g.desk.view(link.requestId);
    const alpha = g.sim.environment("alpha").environmentId;
    for (const [index, write] of [
      { action: "thread.pin", state: "completed" as const, threadId: RELEASE_THREAD },
      { action: "thread.archive", state: "refused" as const, threadId: "thread-unseen" },
    ].entries()) {
      if (index === 0)
        g.keeper.grant({
          scope: view.scope,
          scopeFingerprint: view.scopeFingerprint,
          credentialId: "cred-named",
        });
      g.keeper.recordWrite({
        leaseId: g.keeper.list()[0]?.leaseId ?? "",
        at: new Date(g.clock.now() + index).toISOString(),
        environmentId: alpha,
        operationId: `op-${index}`,
        ...write,
      });
    }
    const open = await page("/api/state");
    const leases = open.body.leases as Array<{ active: boolean; leaseId: string; writes: Body[] }>;
    expect(leases).toHaveLength(1);
    const lease = leases[0] as { active: boolean; leaseId: string; writes: Body[] };
    expect(lease.active).toBe(true);
    expect(lease.writes.map((row) => row.operationId)).toEqual(["op-1", "op-0"]);
    expect(lease.writes[1]).toEqual({
      leaseId: lease.leaseId,
      at: expect.any(String),
      environmentAlias: "alpha",
      threadId: RELEASE_THREAD,
      threadTitle: "Release notes",
      action: "thread.pin",
      actionLabel: "Pin a thread",
      outcome: "completed",
      operationId: "op-0",
    });
    // A thread the inventory never saw has no title, never a made-up one.
    expect(lease.writes[0]).not.toHaveProperty("threadTitle");

    g.keeper.closeAll("revoked");
    const closed = await page("/api/state");
    expect(closed.body.leases).toEqual([]);
    expect(closed.body.pendingRequests).toEqual([]);
    const history = closed.body.leaseHistory as Body[];
    expect(history).toHaveLength(1);
    expect(history[0]).toMatchObject({ closeReason: "revoked", scopeFingerprint: view.scopeFingerprint });
    expect(((history[0]?.writes ?? []) as Body[]).map((row) => row.actionLabel)).toEqual([
      "Archive a thread",
      "Pin a thread",
    ]);
  });

  it("keeps only the last five closed leases, newest first", async () => {
    const g = await startGate();
    const link = await g.desk.request({});
    const { scope, scopeFingerprint } = g.desk.view(link.requestId);
    for (let index = 0; index < 7; index += 1) {
      g.keeper.grant({ scope, scopeFingerprint, credentialId: "cred-named" });
      g.keeper.closeAll(`closed-${index}`);
    }
    const history = (await page("/api/state")).body.leaseHistory as Body[];
    expect(history.map((row) => row.closeReason)).toEqual([
      "closed-6",
      "closed-5",
      "closed-4",
      "closed-3",
      "closed-2",
    ]);
  });
});
