import type { SimEnvironment } from "@t3-connector/t3-sim";
import { ManualDeadlines } from "@t3-connector/test-support/manual-deadlines";
import { type SimReadSetup, startSimRead } from "@t3-connector/test-support/sim-context";
import { toolInputError } from "@t3-connector/test-support/tool-input-error";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { t3AguardarThreadTool } from "../../src/tools/t3_aguardar_thread.js";

const TOOL = "t3_aguardar_thread";
const PROJECT = "project-wait";
const OTHER_PROJECT = "project-hidden";

let setup: SimReadSetup;
let env: SimEnvironment;
let deadlines: ManualDeadlines;
let counter = 0;

beforeEach(async () => {
  // A manual clock: a run moves only when the test advances it, so "still running" is a fact,
  // not a race. The wait's deadline (a call deadline of the context's source) expires when the
  // test says, once the wait is where the test wants it (subscribed, or resubscribing), so a
  // timeout costs no real time and never races locating the thread.
  deadlines = new ManualDeadlines();
  setup = await startSimRead({
    simulator: { environments: [{ alias: "alpha", seed: "empty" }], clock: "manual" },
    definitions: [t3AguardarThreadTool],
    deadlines,
    allowedProjects: { alpha: [PROJECT] },
  });
  env = setup.sim.environment("alpha");
  env.model.addProject({ id: PROJECT, title: "wait", workspaceRoot: "/tmp/wait" });
  env.model.addProject({ id: OTHER_PROJECT, title: "hidden", workspaceRoot: "/tmp/hidden" });
});

afterEach(async () => {
  await setup.close();
});

/** The simulator's own shell row of a thread (what T3 would report), for expected values. */
function shellOf(threadId: string): Record<string, unknown> {
  const inspection = env.model.getThread(threadId);
  if (inspection === undefined) throw new Error(`no thread ${threadId} in the simulator`);
  return inspection.shell;
}

function threadListeners(): number {
  return env.model.store.listenerCount;
}

async function subscriptionsClosed(): Promise<void> {
  await vi.waitFor(() => expect(threadListeners()).toBe(0), { timeout: 2_000, interval: 5 });
}

/** An idle thread whose next run is started now and follows `script`; it stays `starting` until the clock moves. */
async function threadWithPendingRun(script: Parameters<SimEnvironment["model"]["scriptNextRun"]>[1] = {}) {
  const threadId = env.model.addThread({ projectId: PROJECT, title: "Waited on" });
  env.model.scriptNextRun(threadId, script);
  const outcome = await env.model.callUnary("orchestration.dispatchCommand", {
    commandId: `cmd-${++counter}`,
    type: "message.dispatch",
    threadId,
    messageId: `msg-${counter}`,
    text: "Please fix the parser.",
    attachments: [],
    createdBy: "user",
    creationSource: "mcp",
    dispatchMode: { type: "start_immediately" },
  });
  expect(outcome.kind).toBe("success");
  return threadId;
}

function waitCall(args: Record<string, unknown>) {
  return setup.call(TOOL, { environment: "alpha", ...args });
}

async function untilSubscribed(count = 1): Promise<void> {
  await vi.waitFor(() => expect(threadListeners()).toBe(count), { timeout: 2_000, interval: 5 });
}

/** Resolves when the environment swallows a request, an upgrade or a frame under the `hang` fault. */
function heldByHangingServer(): Promise<void> {
  return new Promise((resolve) => {
    const stop = env.faults.onHeld(() => {
      stop();
      resolve();
    });
  });
}

describe("t3_aguardar_thread", () => {
  it("is woken by the run completing and reports the completed state", async () => {
    const threadId = await threadWithPendingRun({ reply: "Parser fixed." });
    const waiting = waitCall({ threadId, timeoutMs: 5_000, includeLatestResponse: true });
    await untilSubscribed();
    env.clock.advance(1_000);
    const result = await waiting;
    expect(result).toMatchObject({
      environment: { alias: "alpha", environmentId: env.environmentId },
      projectId: PROJECT,
      threadId,
      title: "Waited on",
      returnReason: "terminal",
      state: "completed",
      stateSource: "latest_run",
      statusRun: "completed",
      terminal: true,
      timedOut: false,
      pendingRequest: null,
      timeoutMs: 5_000,
    });
    const shellRunId = (shellOf(threadId) as { latestRunId: string }).latestRunId;
    expect(result.runId).toBe(shellRunId);
    expect((result.latestResponse as { text: string; runId: string }).text).toContain("Parser fixed.");
    expect((result.latestResponse as { runId: string }).runId).toBe(shellRunId);
    await subscriptionsClosed();
  });

  it("returns timedOut true on a run that is still going when the deadline passes", async () => {
    const threadId = await threadWithPendingRun();
    const waiting = waitCall({ threadId, timeoutMs: 1_000 });
    await untilSubscribed();
    deadlines.expireCall(1_000);
    const result = await waiting;
    expect(result).toMatchObject({
      returnReason: "timeout",
      timedOut: true,
      terminal: false,
      state: "running",
      statusRun: "starting",
      pendingRequest: null,
    });
    expect(result.runId).toEqual(expect.any(String));
    await subscriptionsClosed();
  });

  it("answers at once, without subscribing, when the thread has no run, an ended run or a pending question", async () => {
    const idle = env.model.addThread({ projectId: PROJECT, title: "Idle", state: "idle" });
    const completed = env.model.addThread({ projectId: PROJECT, title: "Done", state: "completed" });
    const failed = env.model.addThread({ projectId: PROJECT, title: "Broken", state: "failed" });
    const asking = env.model.addThread({ projectId: PROJECT, title: "Asking", state: "waiting_user_input" });
    const subscribe = vi.spyOn(env.model.store, "subscribe");

    const none = await waitCall({ threadId: idle, timeoutMs: 5_000 });
    expect(none).toMatchObject({
      returnReason: "no_run",
      state: "no_run",
      runId: null,
      terminal: false,
      timedOut: false,
    });

    const ended = await waitCall({ threadId: completed, timeoutMs: 5_000 });
    expect(ended).toMatchObject({
      returnReason: "terminal",
      state: "completed",
      statusRun: "completed",
      terminal: true,
    });

    const broken = await waitCall({ threadId: failed, timeoutMs: 5_000 });
    expect(broken).toMatchObject({
      returnReason: "terminal",
      state: "failed",
      statusRun: "failed",
      terminal: true,
    });

    const question = await waitCall({ threadId: asking, timeoutMs: 5_000 });
    const request = (shellOf(asking) as { pendingRuntimeRequest: { id: string } }).pendingRuntimeRequest;
    expect(question).toMatchObject({
      returnReason: "needs_intervention",
      state: "needs_intervention",
      stateSource: "pending_request",
      terminal: false,
      timedOut: false,
      pendingRequest: {
        runtimeRequestId: request.id,
        kind: "user_input",
        reason: "question waiting for an answer",
      },
    });
    expect(subscribe).not.toHaveBeenCalled();
  });

  it("reads the ended run's latest response through the stream when asked, then closes it", async () => {
    const completed = env.model.addThread({
      projectId: PROJECT,
      title: "Done",
      state: "completed",
      reply: "All green.",
    });
    const result = await waitCall({
      threadId: completed,
      timeoutMs: 5_000,
      includeLatestResponse: true,
      maxCharacters: 100,
    });
    expect(result).toMatchObject({ returnReason: "terminal", state: "completed", terminal: true });
    expect((result.latestResponse as { text: string }).text).toContain("All green.");
    await subscriptionsClosed();
  });

  it("never passes an earlier run's response off as the followed run's", async () => {
    const threadId = env.model.addThread({
      projectId: PROJECT,
      title: "Twice",
      state: "completed",
      reply: "First answer.",
    });
    env.model.scriptNextRun(threadId, {});
    await env.model.callUnary("orchestration.dispatchCommand", {
      commandId: `cmd-${++counter}`,
      type: "message.dispatch",
      threadId,
      messageId: `msg-${counter}`,
      text: "Now the second part.",
      attachments: [],
      createdBy: "user",
      creationSource: "mcp",
      dispatchMode: { type: "start_immediately" },
    });
    const waiting = waitCall({ threadId, timeoutMs: 1_000, includeLatestResponse: true });
    await untilSubscribed();
    deadlines.expireCall(1_000);
    const result = await waiting;
    expect(result).toMatchObject({ returnReason: "timeout", timedOut: true, latestResponse: null });
    await subscriptionsClosed();
  });

  it("wakes on a question asked during the wait", async () => {
    const threadId = await threadWithPendingRun({ ask: true });
    const waiting = waitCall({ threadId, timeoutMs: 5_000 });
    await untilSubscribed();
    env.clock.advance(1_000);
    const result = await waiting;
    expect(result).toMatchObject({
      returnReason: "needs_intervention",
      state: "needs_intervention",
      terminal: false,
      pendingRequest: { kind: "user_input" },
    });
    await subscriptionsClosed();
  });

  it("reports a run that ends with a proposed plan as ended and needing a decision", async () => {
    const threadId = await threadWithPendingRun({ plan: true });
    const waiting = waitCall({ threadId, timeoutMs: 5_000 });
    await untilSubscribed();
    env.clock.advance(1_000);
    const result = await waiting;
    // The shell flag about the newest run is stale by then: the plan is read from the stream.
    expect(shellOf(threadId)).toMatchObject({ hasActionableProposedPlan: true });
    expect(result).toMatchObject({
      returnReason: "terminal",
      terminal: true,
      statusRun: "completed",
      state: "needs_intervention",
      stateSource: "proposed_plan",
      pendingRequest: null,
    });
    await subscriptionsClosed();
  });

  it("follows the active run by default, not a newer queued one, and a named run on request", async () => {
    const threadId = env.model.addThread({ projectId: PROJECT, title: "Busy", state: "queued" });
    const shell = shellOf(threadId) as { activeRunId: string; latestRunId: string; status: string };
    expect(shell.activeRunId).not.toBe(shell.latestRunId);

    const activeWait = waitCall({ threadId, timeoutMs: 1_000 });
    await untilSubscribed();
    deadlines.expireCall(1_000);
    expect(await activeWait).toMatchObject({ runId: shell.activeRunId, state: "running", timedOut: true });
    await subscriptionsClosed();

    const queuedWait = waitCall({ threadId, runId: shell.latestRunId, timeoutMs: 1_000 });
    await untilSubscribed();
    deadlines.expireCall(1_000);
    const queued = await queuedWait;
    expect(queued).toMatchObject({
      runId: shell.latestRunId,
      statusRun: "queued",
      state: "running",
      timedOut: true,
    });
    await subscriptionsClosed();
  });

  it("closes its subscription when the client cancels the call", async () => {
    const threadId = await threadWithPendingRun();
    const controller = new AbortController();
    const waiting = setup.client.callTool(
      { name: TOOL, arguments: { environment: "alpha", threadId, timeoutMs: 5_000 } },
      undefined,
      { signal: controller.signal },
    );
    await untilSubscribed();
    controller.abort("the user moved on");
    await expect(waiting).rejects.toThrow();
    await subscriptionsClosed();
    // Reading never interrupts the run it waited on.
    expect(env.model.receivedCommands.map((command) => command.type)).toEqual(["message.dispatch"]);
  });

  it("resumes after a dropped socket and still sees the run complete", async () => {
    const threadId = await threadWithPendingRun({ reply: "Finished after the drop." });
    const subscribe = vi.spyOn(env.model.store, "subscribe");
    const waiting = waitCall({ threadId, timeoutMs: 5_000 });
    await untilSubscribed();
    env.dropSockets();
    // The run ends while no socket is open: the resumed stream must replay what was missed.
    env.clock.advance(1_000);
    const result = await waiting;
    expect(result).toMatchObject({
      returnReason: "terminal",
      state: "completed",
      terminal: true,
      timedOut: false,
    });
    expect(subscribe.mock.calls.length).toBeGreaterThanOrEqual(2);
    await subscriptionsClosed();
  });

  it("reports a timeout, not a made-up outcome, when the socket cannot come back", async () => {
    const threadId = await threadWithPendingRun();
    const waiting = waitCall({ threadId, timeoutMs: 2_000 });
    await untilSubscribed();
    const held = heldByHangingServer();
    env.faults.set({ hang: true });
    env.dropSockets();
    // The wait has tried to come back and the environment stays silent; only then does time run out.
    await vi.waitFor(() => expect(setup.logs.join("\n")).toMatch(/resubscribing to a thread/), {
      timeout: 2_000,
      interval: 5,
    });
    await held;
    deadlines.expireCall(2_000);
    const result = await waiting;
    expect(result).toMatchObject({
      returnReason: "timeout",
      timedOut: true,
      terminal: false,
      state: "running",
    });
    env.faults.clear();
    await subscriptionsClosed();
  });

  it("says the stream closed, and why, when the environment refuses to resubscribe", async () => {
    const threadId = await threadWithPendingRun();
    const waiting = waitCall({ threadId, timeoutMs: 5_000 });
    await untilSubscribed();
    env.faults.set({ expireTokens: true });
    env.dropSockets();
    const result = await waiting;
    expect(result).toMatchObject({
      returnReason: "subscription_closed",
      terminal: false,
      timedOut: false,
      state: "running",
      subscriptionError: { code: "unauthorized" },
    });
    env.faults.clear();
    await subscriptionsClosed();
  });

  it("reports thread_deleted when the thread is deleted during the wait", async () => {
    const threadId = await threadWithPendingRun();
    const waiting = waitCall({ threadId, timeoutMs: 5_000 });
    await untilSubscribed();
    await env.model.callUnary("orchestration.dispatchCommand", {
      commandId: `cmd-${++counter}`,
      type: "thread.delete",
      threadId,
    });
    const result = await waiting;
    expect(result).toMatchObject({ returnReason: "thread_deleted", terminal: false, timedOut: false });
    await subscriptionsClosed();
  });

  it("refuses an unknown run id, and a thread outside the ACL exactly like a missing one", async () => {
    const threadId = await threadWithPendingRun();
    const unknownRun = await setup.callError(TOOL, {
      environment: "alpha",
      threadId,
      runId: "run:nope",
      timeoutMs: 2_000,
    });
    expect(unknownRun).toMatch(/^not_found: run run:nope is not a run of thread/);
    await subscriptionsClosed();

    const hidden = env.model.addThread({ projectId: OTHER_PROJECT, title: "Hidden", state: "completed" });
    const outside = await setup.callError(TOOL, { environment: "alpha", threadId: hidden, timeoutMs: 2_000 });
    const missing = await setup.callError(TOOL, {
      environment: "alpha",
      threadId: "no-such-thread",
      timeoutMs: 2_000,
    });
    expect(outside).toMatch(/^thread_not_found: /);
    expect(outside.replace(hidden, "<id>")).toBe(missing.replace("no-such-thread", "<id>"));
  });

  it("refuses out-of-bounds or missing inputs as an invalid_input tool error before doing anything", async () => {
    const threadId = env.model.addThread({ projectId: PROJECT, title: "Idle", state: "idle" });
    const bad = [
      { environment: "alpha", threadId, timeoutMs: 0 },
      { environment: "alpha", threadId, timeoutMs: 5_001 },
      { environment: "alpha", threadId, timeoutMs: 1.5 },
      { environment: "alpha", threadId },
      { threadId, timeoutMs: 1_000 },
      { environment: "alpha", threadId, timeoutMs: 1_000, maxCharacters: 99 },
      { environment: "alpha", threadId, timeoutMs: 1_000, ambiente: "alpha" },
    ];
    for (const args of bad) {
      expect((await toolInputError(setup.client, TOOL, args)).code).toBe("invalid_input");
    }
  });
});
