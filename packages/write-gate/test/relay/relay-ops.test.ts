import { type GateHarness, startGateHarness } from "@t3-connector/test-support/gate-harness";
import {
  IDLE_THREAD,
  LEASED_PROJECT,
  OTHER_PROJECT,
  OUTSIDE_THREAD,
  RUNNING_THREAD,
} from "@t3-connector/test-support/sim-world";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_PENDING_PER_CLIENT } from "../../src/approval/index.js";
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

const dispatch = (leaseId: string, operationId: string, extra: Partial<Body> = {}): Body =>
  pinIdleThread(leaseId, operationId, extra);

describe("relay operations", () => {
  it("lists the environments with aliases, ids and labels", async () => {
    const answer = await h.relay({ op: "environments" });
    expect(answer.status).toBe(200);
    expect(body(answer).environments).toEqual(
      h.world.sim.environments.map((env) => ({
        alias: env.alias,
        environmentId: env.environmentId,
        label: env.alias,
      })),
    );
  });

  it("refuses an unknown op and a body that does not match the op's strict schema", async () => {
    const unknown = await h.relay({ op: "grant_lease" });
    expect([unknown.status, body(unknown).error]).toEqual([400, "action_unavailable"]);
    const extra = await h.relay({ op: "environments", leaseId: "x" });
    expect([extra.status, body(extra).error]).toEqual([400, "invalid_request"]);
  });

  it("refuses a __proto__ key inside a record of the action input as invalid_request", async () => {
    const leaseId = await h.grantLease();
    const request = dispatch(leaseId, "op-proto", {
      action: "runtime-request.answer",
      input: JSON.parse(
        `{"threadId":"${IDLE_THREAD}","requestId":"req-1","answers":{"q1":"yes","__proto__":{"q2":"no"}}}`,
      ),
    });
    const answer = await h.relay(request);
    expect([answer.status, body(answer).error]).toEqual([400, "invalid_request"]);
  });

  it("answers lease status closed, then the active lease once one is granted", async () => {
    h.gate.lease.closeAll("test_reset");
    expect(body(await h.relay({ op: "lease" }))).toEqual({ active: false });
    const leaseId = await h.grantLease();
    const status = body(await h.relay({ op: "lease" }));
    expect(status).toMatchObject({ active: true, leaseId });
    expect(status.environments).toHaveLength(2);
  });

  it("refuses a client over its pending-request budget across the relay, naming the limit, while another client asks", async () => {
    h.gate.lease.closeAll("test_reset");
    const ask = (name: string) => h.relay({ op: "request_approval", client: { name } });
    for (let index = 0; index < MAX_PENDING_PER_CLIENT; index += 1) {
      expect((await ask("looping-client")).status).toBe(200);
    }
    const refused = await ask("looping-client");
    expect(refused.status).toBe(403);
    expect(body(refused)).toMatchObject({
      error: "client_budget_exceeded",
      details: { budget: "pending_requests", limit: MAX_PENDING_PER_CLIENT },
    });
    expect(body(await ask("other-client"))).toMatchObject({ decision: "pending" });
    h.gate.lease.closeAll("test_reset");
  });

  it("requests an approval: link, every live environment covered (the proposal only ticks), fingerprint, expiry", async () => {
    h.gate.lease.closeAll("test_reset");
    const answer = await h.relay({ op: "request_approval", environments: ["alpha"] });
    expect(answer.status).toBe(200);
    const link = body(answer);
    expect(link.url).toBe(`http://localhost:${h.gate.port}/?request=${link.requestId}`);
    expect(link.covered).toEqual([
      expect.objectContaining({
        alias: "alpha",
        environmentId: h.world.env("alpha").environmentId,
        projectCount: 2,
      }),
      expect.objectContaining({ alias: "beta", environmentId: h.world.env("beta").environmentId }),
    ]);
    expect(link.leftOut).toEqual([]);
    expect(link).toMatchObject({
      decision: "pending",
      scopeFingerprint: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(Date.parse(link.expiresAt as string)).toBeGreaterThan(Date.now());
  });

  it("dispatches a write once, records it under the lease, and replays it without resending", async () => {
    const leaseId = await h.grantLease();
    const alpha = h.world.env("alpha");
    const before = alpha.model.receivedCommands.length;
    const first = await h.relay(dispatch(leaseId, "op-pin-1"));
    expect(first.status).toBe(200);
    expect(body(first)).toMatchObject({ state: "completed", replayed: false, operationId: "op-pin-1" });
    expect(body(first).receipt).toHaveProperty("sequence");
    const again = await h.relay(dispatch(leaseId, "op-pin-1"));
    expect(body(again)).toMatchObject({ state: "completed", replayed: true, receipt: body(first).receipt });
    expect(alpha.model.receivedCommands.length - before).toBe(1);
    expect(h.gate.lease.writes(h.gate.lease.list()[0]?.leaseId ?? "")).toEqual([
      // The thread the input names, so the page can show its title.
      expect.objectContaining({
        operationId: "op-pin-1",
        action: "thread.pin",
        state: "completed",
        threadId: IDLE_THREAD,
      }),
    ]);
  });

  it("maps refusals to stable codes and sends nothing", async () => {
    const leaseId = await h.grantLease({ environments: ["alpha"] });
    const count = h.world.commandCount();
    const codes = async (request: Body) => {
      const answer = await h.relay(request);
      expect(answer.status).toBe(403);
      return body(answer).error;
    };
    expect(await codes(dispatch(leaseId, "op-r1", { environment: undefined }))).toBe("environment_required");
    expect(await codes(dispatch(leaseId, "op-r2", { environment: "nowhere" }))).toBe("environment_unknown");
    expect(await codes(dispatch(leaseId, "op-r3", { environment: "beta" }))).toBe("environment_not_in_lease");
    expect(await codes(dispatch("not-the-lease", "op-r4"))).toBe("lease_closed");
    expect(await codes(dispatch(leaseId, "op-r5", { input: { threadId: OUTSIDE_THREAD } }))).toBe(
      "scope_denied",
    );
    expect(
      await codes(dispatch(leaseId, "op-r6", { input: { threadId: "thread-that-does-not-exist" } })),
    ).toBe("thread_not_found");
    expect(h.world.commandCount()).toBe(count);
  });

  it("refuses the same operationId with a different input as operation_conflict", async () => {
    const leaseId = await h.grantLease();
    const ok = await h.relay(
      dispatch(leaseId, "op-conflict", {
        action: "thread.title",
        input: { threadId: IDLE_THREAD, title: "one" },
      }),
    );
    expect(ok.status).toBe(200);
    const count = h.world.commandCount();
    const conflict = await h.relay(
      dispatch(leaseId, "op-conflict", {
        action: "thread.title",
        input: { threadId: IDLE_THREAD, title: "two" },
      }),
    );
    expect([conflict.status, body(conflict).error]).toEqual([403, "operation_conflict"]);
    expect(h.world.commandCount()).toBe(count);
  });

  it("sends exactly one command for 50 simultaneous dispatches with one operationId", async () => {
    const leaseId = await h.grantLease();
    const alpha = h.world.env("alpha");
    const before = alpha.model.receivedCommands.length;
    const request = dispatch(leaseId, "op-fifty", {
      action: "thread.title",
      input: { threadId: IDLE_THREAD, title: "fifty" },
    });
    const answers = await Promise.all(Array.from({ length: 50 }, () => h.relay(request)));
    expect(answers.map((answer) => answer.status)).toEqual(Array(50).fill(200));
    expect(answers.filter((answer) => body(answer).replayed === false)).toHaveLength(1);
    const sent = alpha.model.receivedCommands.slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.type).toBe("thread.metadata.update");
  });

  it("reconciles by environment and operationId, and by key, without sending", async () => {
    const leaseId = await h.grantLease();
    const done = body(await h.relay(dispatch(leaseId, "op-reconcile")));
    const count = h.world.commandCount();
    const byId = body(await h.relay({ op: "reconcile", environment: "alpha", operationId: "op-reconcile" }));
    expect(byId).toMatchObject({ state: "completed", settled: false, operationId: "op-reconcile" });
    const byKey = body(await h.relay({ op: "reconcile", key: byId.key }));
    expect(byKey).toMatchObject({ state: "completed", receipt: done.receipt });
    const unknown = await h.relay({ op: "reconcile", environment: "alpha", operationId: "op-never" });
    expect([unknown.status, body(unknown).error]).toEqual([403, "not_found"]);
    expect(h.world.commandCount()).toBe(count);
  });

  it("reads only the lease's projects and threads, and nothing outside them", async () => {
    const leaseId = await h.grantLease({ environments: ["alpha"] });
    const read = (extra: Body) => h.relay({ op: "leased_read", leaseId, environment: "alpha", ...extra });
    const projects = body(await read({ read: "projects" })).projects as Body[];
    expect(projects.map((project) => project.id)).toEqual([LEASED_PROJECT]);
    const threads = body(await read({ read: "threads" })).threads as Body[];
    expect(threads.map((thread) => thread.id).sort()).toEqual([IDLE_THREAD, RUNNING_THREAD].sort());
    const thread = body(await read({ read: "thread", threadId: IDLE_THREAD }));
    expect((thread.thread as Body).id).toBe(IDLE_THREAD);
    expect(thread.detail).toBeTypeOf("object");
    const outside = await read({ read: "thread", threadId: OUTSIDE_THREAD });
    expect(body(outside).error).toBe("thread_not_found");
    expect(body(await read({ read: "threads", projectId: OTHER_PROJECT })).error).toBe("scope_denied");
    const beta = await h.relay({ op: "leased_read", leaseId, environment: "beta", read: "projects" });
    expect(body(beta).error).toBe("environment_not_in_lease");
    h.gate.lease.closeAll("revoked");
    expect(body(await read({ read: "projects" })).error).toBe("lease_closed");
  });
});
