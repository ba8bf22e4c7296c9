/**
 * The reads on the simulator's 0.0.46 age, against both values of every open point
 * (UNKNOWNS_0046_AS_BEFORE and UNKNOWNS_0046_OTHERWISE cover each variant once, ADR 0069): the
 * listings and a read by id answer, a thread waiting on a secret request shows in the attention
 * list and the control plane under both spellings (the row's field, or the item read from the
 * thread), and t3_aguardar_thread wakes on a run that ends.
 */
import type { SimEnvironment } from "@t3-connector/t3-sim";
import { UNKNOWNS_0046_AS_BEFORE, UNKNOWNS_0046_OTHERWISE, type Unknowns0046 } from "@t3-connector/t3-sim";
import { ManualDeadlines } from "@t3-connector/test-support/manual-deadlines";
import { type SimReadSetup, startSimRead } from "@t3-connector/test-support/sim-context";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { t3AguardarThreadTool } from "../../src/tools/t3_aguardar_thread.js";
import { t3AtencaoTool } from "../../src/tools/t3_atencao.js";
import { t3ControlPlaneTool } from "../../src/tools/t3_control_plane.js";
import { t3ThreadTool } from "../../src/tools/t3_thread.js";
import { t3ThreadsTool } from "../../src/tools/t3_threads.js";

const PROJECT = "project-age";

describe.each([
  ["as the simulator played it before", UNKNOWNS_0046_AS_BEFORE],
  ["the other way on every open point", UNKNOWNS_0046_OTHERWISE],
] as const)("reads on the 0.0.46 age, %s", (_name, unknowns: Unknowns0046) => {
  let setup: SimReadSetup;
  let env: SimEnvironment;
  beforeAll(async () => {
    setup = await startSimRead({
      simulator: { environments: [{ alias: "age", seed: "empty", unknowns }], clock: "manual" },
      definitions: [t3ThreadsTool, t3ThreadTool, t3AtencaoTool, t3ControlPlaneTool, t3AguardarThreadTool],
      deadlines: new ManualDeadlines(),
      allowedProjects: { age: [PROJECT] },
    });
    env = setup.sim.environment("age");
    env.model.addProject({ id: PROJECT, title: "age", workspaceRoot: "/tmp/age" });
  });
  afterAll(async () => {
    await setup.close();
  });

  it("lists threads and reads one by id", async () => {
    const threadId = env.model.addThread({ projectId: PROJECT, title: "Listed", state: "completed" });
    const listed = (await setup.call("t3_threads", { environment: "age" })) as {
      threads: Array<{ threadId: string }>;
    };
    expect(listed.threads.map((thread) => thread.threadId)).toContain(threadId);
    const read = await setup.call("t3_thread", { environment: "age", threadId });
    expect(read).toMatchObject({ threadId, title: "Listed", state: "completed" });
  });

  it("shows a thread waiting on a secret request in the attention list and the control plane", async () => {
    const threadId = env.model.addThread({ projectId: PROJECT, title: "Needs a key", state: "running" });
    const requestId = env.model.requestSecret(threadId, { name: "GITHUB_TOKEN" });
    const attention = (await setup.call("t3_atencao", { environment: "age" })) as {
      threads: Array<Record<string, unknown>>;
    };
    const listed = attention.threads.find((thread) => thread.threadId === threadId);
    expect(listed).toMatchObject({ state: "needs_intervention", stateSource: "secret_request" });
    expect(String(listed?.reason)).toContain("GITHUB_TOKEN");
    const read = await setup.call("t3_thread", { environment: "age", threadId });
    expect(read).toMatchObject({ stateSource: "secret_request" });
    expect((read.identifier as { secretRequestId: string }).secretRequestId).toContain(
      unknowns.secretRequests === "simulator" ? requestId : "secret-request",
    );
    const plane = JSON.stringify(await setup.call("t3_control_plane", { environment: "age" }));
    expect(plane).toContain(threadId);
    expect(plane).toContain("secret_request");
  });

  it("t3_aguardar_thread wakes when the run ends", async () => {
    const threadId = env.model.addThread({ projectId: PROJECT, title: "Waited on" });
    env.model.scriptNextRun(threadId, { reply: "Done." });
    const sent = await env.model.callUnary("orchestration.dispatchCommand", {
      type: "message.dispatch",
      commandId: "cmd-age-wait",
      threadId,
      messageId: "msg-age-wait",
      text: "Go.",
      attachments: [],
      createdBy: "user",
      creationSource: "mcp",
      dispatchMode: { type: "start_immediately" },
    });
    expect(sent.kind).toBe("success");
    const listening = env.model.store.listenerCount;
    const waiting = setup.call("t3_aguardar_thread", { environment: "age", threadId, timeoutMs: 5_000 });
    // Subscribed: the run moves only now, on the manual clock.
    await vi.waitFor(() => expect(env.model.store.listenerCount).toBeGreaterThan(listening), {
      timeout: 2_000,
      interval: 5,
    });
    env.clock.advance(1_000);
    const result = await waiting;
    expect(result).toMatchObject({ threadId, state: "completed", terminal: true, timedOut: false });
  });
});
