/**
 * The walk-arounds an adversarial run found under an approval-required lease, on threads T3 runs
 * in full-access, relayed as a bridge relays them (ADR 0037): releasing a prepared run, editing a
 * queued message then promoting it into the running turn, editing it then stopping the run so it
 * starts next. Each is refused runtime_mode_above_lease with nothing sent and nothing run, counted
 * at the simulator. The ways the refusals point to still work: a stop that holds the queue, then
 * lowering the idle thread's mode, then resuming, runs the queued message in approval-required.
 * And a launch that names no mode runs at the lease's ceiling, and says so.
 */
import { randomUUID } from "node:crypto";
import {
  commandTypesSince,
  countersOf,
  WALK_CEILING,
  workAboveCeiling,
} from "@t3-connector/test-support/ceiling-walk";
import { type GateHarness, leaseScopeFor, startGateHarness } from "@t3-connector/test-support/gate-harness";
import { LEASED_PROJECT, startSimWorld } from "@t3-connector/test-support/sim-world";
import { SAMPLE_INPUTS } from "@t3-connector/write-engine/actions";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scopeFingerprint } from "../../src/approval/index.js";
import { GateLeaseKeeper } from "../../src/lease/lease-keeper.js";

type Body = Record<string, unknown>;
type Run = { id: string; status: string; userMessageId?: string; queueHeld?: boolean };

const QUEUED = "thread-full-access-with-a-queue";
const PREPARING = "thread-full-access-preparing";

let h: GateHarness;
let leaseId: string;

beforeAll(async () => {
  const world = await startSimWorld(["alpha"], {}, { clock: "manual" });
  const model = world.env("alpha").model;
  // T3's default mode: a running turn and the person's own queued follow-up behind it.
  model.addThread({ id: QUEUED, projectId: LEASED_PROJECT, state: "queued", runtimeMode: "full-access" });
  model.addThread({ id: PREPARING, projectId: LEASED_PROJECT, runtimeMode: "full-access" });
  const prepared = await model.callUnary("orchestration.dispatchCommand", {
    type: "message.dispatch",
    commandId: randomUUID(),
    createdBy: "user",
    creationSource: "web",
    threadId: PREPARING,
    messageId: randomUUID(),
    text: "Prepare the worktree, then migrate the database.",
    attachments: [],
    dispatchMode: { type: "defer_start" },
  });
  expect(prepared.kind).toBe("success");
  h = await startGateHarness({ world });
  if (!(h.gate.lease instanceof GateLeaseKeeper))
    throw new Error("the gate's lease is not a GateLeaseKeeper");
  const scope = { ...(await leaseScopeFor(world)), runtimeMode: WALK_CEILING };
  leaseId = h.gate.lease.grant({
    scope,
    scopeFingerprint: scopeFingerprint(scope),
    credentialId: "test",
  }).leaseId;
});

afterAll(async () => {
  await h?.close();
  await h?.world.close();
});

const alpha = () => h.world.env("alpha");

function projection(threadId: string): { runs: Run[]; messages: { id: string; text: string }[] } {
  const inspected = alpha().model.getThread(threadId);
  if (inspected === undefined) throw new Error(`no thread ${threadId}`);
  return inspected.projection as { runs: Run[]; messages: { id: string; text: string }[] };
}

function runs(threadId: string): Run[] {
  return projection(threadId).runs;
}

function runIn(threadId: string, status: string): Run {
  const run = runs(threadId).find((candidate) => candidate.status === status);
  if (run === undefined) throw new Error(`no ${status} run on ${threadId}`);
  return run;
}

function messageText(threadId: string, messageId: string | undefined): string | undefined {
  return projection(threadId).messages.find((message) => message.id === messageId)?.text;
}

function write(action: string, input: Body): Promise<{ status: number; body: unknown }> {
  return h.relay({
    op: "dispatch",
    action,
    leaseId,
    environment: "alpha",
    operationId: `op-${randomUUID()}`,
    input,
  });
}

async function refused(action: string, input: Body): Promise<string> {
  const answer = await write(action, input);
  expect(answer.body, action).toMatchObject({
    error: "runtime_mode_above_lease",
    details: { recorded: false },
  });
  const { message } = answer.body as { message: string };
  expect(message).toContain("which runs in full-access, above this lease's ceiling approval-required");
  return message;
}

describe("the ceiling's walk-arounds, relayed under an approval-required lease", () => {
  it("refuses releasing a full-access thread's prepared run: it stays preparing, nothing sent or run", async () => {
    const before = countersOf(alpha());
    const preparing = runIn(PREPARING, "preparing");
    await refused("prepared-run.release", { threadId: PREPARING, runId: preparing.id });
    expect(runIn(PREPARING, "preparing").id).toBe(preparing.id);
    expect(commandTypesSince(alpha(), before)).toEqual([]);
    expect(alpha().model.agentWork.slice(before.work)).toEqual([]);
  });

  it("refuses editing the person's queued message, promoting it into the running turn, and stopping the run so it starts next", async () => {
    const before = countersOf(alpha());
    const active = runIn(QUEUED, "running");
    const queued = runIn(QUEUED, "queued");
    const original = messageText(QUEUED, queued.userMessageId);
    await refused("queued-run.edit", {
      threadId: QUEUED,
      runId: queued.id,
      text: "Delete the production data.",
    });
    await refused("queued-message.promote-to-steer", {
      threadId: QUEUED,
      queuedRunId: queued.id,
      targetRunId: active.id,
    });
    const stop = await refused("run.interrupt", { threadId: QUEUED, runId: active.id });
    expect(stop).toContain("holdQueue: true");
    expect(messageText(QUEUED, queued.userMessageId)).toBe(original);
    expect(runIn(QUEUED, "running").id).toBe(active.id);
    expect(runIn(QUEUED, "queued").id).toBe(queued.id);
    expect(commandTypesSince(alpha(), before)).toEqual([]);
    expect(alpha().model.agentWork.slice(before.work)).toEqual([]);
  });

  it("refuses lowering the mode under a running full-access turn, which would leave that turn steerable", async () => {
    const before = countersOf(alpha());
    const message = await refused("thread.runtime-mode.set", {
      threadId: QUEUED,
      runtimeMode: "approval-required",
    });
    expect(message).toContain("stop it with run.interrupt and holdQueue: true, then lower its mode");
    expect(commandTypesSince(alpha(), before)).toEqual([]);
  });

  it("lets the way out through: stop holding the queue, lower the idle thread, resume, and the queued message runs in approval-required", async () => {
    const before = countersOf(alpha());
    const active = runIn(QUEUED, "running");
    const queued = runIn(QUEUED, "queued");
    const stop = await write("run.interrupt", { threadId: QUEUED, runId: active.id, holdQueue: true });
    expect(stop.body).toMatchObject({ state: "completed" });
    expect(runIn(QUEUED, "queued")).toMatchObject({ id: queued.id, queueHeld: true });
    const lower = await write("thread.runtime-mode.set", {
      threadId: QUEUED,
      runtimeMode: "approval-required",
    });
    expect(lower.body).toMatchObject({ state: "completed" });
    const resume = await write("queue.resume", { threadId: QUEUED });
    expect(resume.body).toMatchObject({ state: "completed" });
    expect(commandTypesSince(alpha(), before)).toEqual([
      "run.interrupt",
      "thread.runtime-mode.set",
      "queue.resume",
    ]);
    expect(alpha().model.agentWork.slice(before.work)).toEqual([
      expect.objectContaining({ runId: queued.id, kind: "turn_started", runtimeMode: "approval-required" }),
    ]);
  });

  it("runs a launch that names no mode at the lease's ceiling, and its result says so", async () => {
    const before = countersOf(alpha());
    const { runtimeMode: _omitted, ...input } = SAMPLE_INPUTS["thread.launch"];
    const answer = await write("thread.launch", input);
    expect(answer.body).toMatchObject({ state: "completed", runtimeMode: "approval-required" });
    const threadId = (answer.body as { receipt: { threadId: string } }).receipt.threadId;
    expect(alpha().model.getThread(threadId)?.shell.runtimeMode).toBe("approval-required");
    expect(alpha().model.agentWork.slice(before.work)).toEqual([
      expect.objectContaining({ threadId, kind: "turn_started", runtimeMode: "approval-required" }),
    ]);
    expect(workAboveCeiling(alpha(), before)).toEqual([]);
  });
});
