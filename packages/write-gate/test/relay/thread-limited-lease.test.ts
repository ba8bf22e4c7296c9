/**
 * A lease limited to the threads the client named (ADR 0041), at the real relay over the
 * simulator: a pin of the named thread completes, a pin of another thread of the same project is
 * refused `scope_denied` naming it with nothing sent, and a thread the lease launched itself may
 * be written to afterwards. The lease is granted through the keeper's seam with the scope the
 * approval binds (`limitToThreads`); the page's part is the browser tier's.
 */

import { type GateHarness, leaseScopeFor, startGateHarness } from "@t3-connector/test-support/gate-harness";
import { IDLE_THREAD, LEASED_PROJECT, RUNNING_THREAD } from "@t3-connector/test-support/sim-world";
import { SAMPLE_INPUTS } from "@t3-connector/write-engine/actions";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { limitToThreads, scopeFingerprint } from "../../src/approval/index.js";
import { GateLeaseKeeper } from "../../src/lease/lease-keeper.js";
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

async function limitedLease(): Promise<string> {
  if (!(h.gate.lease instanceof GateLeaseKeeper))
    throw new Error("the gate's lease is not a GateLeaseKeeper");
  const alpha = h.world.env("alpha").environmentId;
  const whole = await leaseScopeFor(h.world, ["alpha"]);
  const scope = limitToThreads(
    { ...whole, runtimeMode: "approval-required" },
    [
      {
        threadId: IDLE_THREAD,
        title: "idle",
        environmentId: alpha,
        alias: "alpha",
        projectId: LEASED_PROJECT,
      },
    ],
    false,
  );
  h.gate.lease.closeAll("test_regrant");
  return h.gate.lease.grant({ scope, scopeFingerprint: scopeFingerprint(scope), credentialId: "test" })
    .leaseId;
}

describe("a lease limited to the threads the client named, at the relay", () => {
  it("pins the named thread, refuses another thread of the project, and admits a thread it launched", async () => {
    const leaseId = await limitedLease();
    const before = h.world.commandCount();
    const other = await h.relay(
      pinIdleThread(leaseId, "op-limited-other", { input: { threadId: RUNNING_THREAD } }),
    );
    expect(other.status).toBe(403);
    expect(body(other)).toMatchObject({ error: "scope_denied", details: { recorded: false } });
    expect(body(other).message).toContain(`thread ${RUNNING_THREAD} is not one the lease was approved for`);
    expect(h.world.commandCount()).toBe(before);

    expect((await h.relay(pinIdleThread(leaseId, "op-limited-named"))).status).toBe(200);

    const launched = await h.relay({
      op: "dispatch",
      leaseId,
      environment: "alpha",
      operationId: "op-limited-launch",
      action: "thread.launch",
      input: {
        ...SAMPLE_INPUTS["thread.launch"],
        projectId: LEASED_PROJECT,
        workspaceStrategy: { type: "root" },
        runtimeMode: "approval-required",
      },
    });
    expect(launched.status, JSON.stringify(launched.body)).toBe(200);
    const threadId = (body(launched).derivedIds as Body).threadId as string;
    const pinned = await h.relay(pinIdleThread(leaseId, "op-limited-launched", { input: { threadId } }));
    expect(pinned.status, JSON.stringify(pinned.body)).toBe(200);
    expect(h.world.commandCount()).toBe(before + 3);
  });
});
