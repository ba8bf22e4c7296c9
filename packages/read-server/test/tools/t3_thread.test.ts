import type { SimEnvironmentModel } from "@t3-connector/t3-sim";
import { ManualDeadlines } from "@t3-connector/test-support/manual-deadlines";
import type { SimReadSetup } from "@t3-connector/test-support/sim-context";
import { toolInputError } from "@t3-connector/test-support/tool-input-error";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { t3ThreadTool } from "../../src/tools/t3_thread.js";
import { LONG_REPLY_END, nextHeld, startByIdSetup } from "./by-id-fixture.js";

interface PendingRequestOut {
  requestId: string;
  kind: string;
  content: { type: string; questions?: unknown[]; prompt?: string; options?: unknown[] } | null;
  nextAction: { type: string; tool?: string; action?: string; input?: unknown; responseField?: string };
}

let setup: SimReadSetup;
beforeAll(async () => {
  setup = await startByIdSetup([t3ThreadTool]);
});
afterAll(async () => {
  await setup?.close();
});

describe("t3_thread", () => {
  it("shows a pending question with its options and the answer tool with the target ids", async () => {
    const out = await setup.call("t3_thread", { environment: "alpha", threadId: "t-question" });
    expect(out.environment).toEqual({ alias: "alpha", environmentId: "env-alpha" });
    expect(out.environmentDiscovery).toBeUndefined();
    expect(out.state).toBe("needs_intervention");
    expect(out.stateSource).toBe("pending_request");
    const pending = out.pendingRequests as PendingRequestOut[];
    expect(pending).toHaveLength(1);
    const request = pending[0] as PendingRequestOut;
    expect(request.kind).toBe("user_input");
    expect(request.content).toEqual({
      type: "user_input",
      questions: [
        {
          id: "scope",
          header: "Scope",
          question: "Which part of the workspace should I change?",
          options: [
            { label: "Only the tests", description: "Touch files under test/ only", value: "tests" },
            { label: "Source and tests", description: "Change source files and their tests", value: "all" },
          ],
          allowCustomAnswer: true,
          required: true,
        },
      ],
    });
    expect(request.nextAction).toEqual({
      type: "respond_runtime_request",
      action: "runtime-request.answer",
      tool: "t3_escrever_runtime_request_answer",
      input: { threadId: "t-question", requestId: request.requestId },
      responseField: "answers",
      requiresUserDecision: true,
    });
    // The request the state names is the one listed.
    expect(out.identifier).toEqual({ runtimeRequestId: request.requestId });
  });

  it("shows a pending approval with its decisions and the approve tool", async () => {
    const out = await setup.call("t3_thread", { environment: "env-alpha", threadId: "t-approval" });
    const request = (out.pendingRequests as PendingRequestOut[])[0] as PendingRequestOut;
    expect(request.kind).toBe("command");
    expect(request.content?.type).toBe("approval");
    expect(request.content?.prompt).toEqual(expect.any(String));
    expect(request.content?.options).toEqual([
      { decision: "accept", label: "Run it" },
      { decision: "acceptForSession", label: "Always allow in this session" },
      { decision: "decline", label: "Don't run" },
    ]);
    expect(request.nextAction).toMatchObject({
      type: "respond_runtime_request",
      action: "runtime-request.approve",
      tool: "t3_escrever_runtime_request_approve",
      input: { threadId: "t-approval", requestId: request.requestId },
      responseField: "decision",
    });
  });

  it("follows the active run when a newer run is queued behind it, and names the newer run", async () => {
    const out = await setup.call("t3_thread", { environment: "alpha", threadId: "t-queued" });
    const activeRun = out.activeRun as { runId: string; status: string };
    const latestRun = out.latestRun as { runId: string; status: string };
    expect(out.state).toBe("running");
    expect(out.stateSource).toBe("active_run");
    expect(out.runId).toBe(activeRun.runId);
    expect(out.statusRun).toBe("running");
    expect(latestRun.runId).not.toBe(activeRun.runId);
    expect(latestRun.status).toBe("queued");
    expect(out.latestRunId).toBe(latestRun.runId);
    expect(out.latestRunStatus).toBe("queued");
    expect(out.note).toContain(latestRun.runId);
  });

  it("cuts the latest response from its end to maxCharacters", async () => {
    const out = await setup.call("t3_thread", {
      environment: "alpha",
      threadId: "t-long",
      maxCharacters: 200,
    });
    const response = out.latestResponse as { text: string; truncated: boolean };
    expect(out.state).toBe("completed");
    expect(response.truncated).toBe(true);
    expect(response.text.startsWith("…")).toBe(true);
    expect(response.text.endsWith(LONG_REPLY_END)).toBe(true);
    expect(Array.from(response.text)).toHaveLength(201);
  });

  it("reads an archived thread by id", async () => {
    const out = await setup.call("t3_thread", { environment: "alpha", threadId: "t-archived" });
    expect(out.threadId).toBe("t-archived");
  });

  it("locates a thread without environment and reports how it was found", async () => {
    const out = await setup.call("t3_thread", { threadId: "t-beta" });
    expect(out.environment).toEqual({ alias: "beta", environmentId: "env-beta" });
    expect(out.environmentDiscovery).toEqual({
      complete: true,
      queriedEnvironments: [
        { alias: "alpha", environmentId: "env-alpha", name: "alpha", found: 0 },
        { alias: "beta", environmentId: "env-beta", name: "beta", found: 1 },
      ],
      environmentFailures: [],
    });
  });

  it("answers an unknown thread and a thread outside the ACL with the same refusal", async () => {
    const unknown = await setup.callError("t3_thread", { environment: "alpha", threadId: "t-nowhere" });
    const hidden = await setup.callError("t3_thread", { environment: "alpha", threadId: "t-hidden" });
    expect(unknown.startsWith("thread_not_found: ")).toBe(true);
    expect(hidden.replace("t-hidden", "ID")).toBe(unknown.replace("t-nowhere", "ID"));
    // Without environment as well: a definitive absence, naming every environment.
    const swept = await setup.callError("t3_thread", { threadId: "t-hidden" });
    const sweptUnknown = await setup.callError("t3_thread", { threadId: "t-nowhere" });
    expect(swept).toContain('"alpha", "beta"');
    expect(swept.replace("t-hidden", "ID")).toBe(sweptUnknown.replace("t-nowhere", "ID"));
  });

  it("never falls back to another environment when one is named", async () => {
    const text = await setup.callError("t3_thread", { environment: "alpha", threadId: "t-beta" });
    expect(text).toMatch(/^thread_not_found: .*"alpha"/);
  });

  it("refuses an id that exists in two environments, naming both", async () => {
    const text = await setup.callError("t3_thread", { threadId: "t-shared" });
    expect(text).toMatch(/^ambiguous_thread: /);
    expect(text).toContain('"alpha", "beta"');
    const chosen = await setup.call("t3_thread", { environment: "beta", threadId: "t-shared" });
    expect(chosen.title).toBe("Shared beta");
  });

  it("refuses legacy and unknown keys as an invalid_input tool error", async () => {
    for (const args of [
      { ambiente: "alpha", threadId: "t-question" },
      { threadId: "t-question", limite: 3 },
      { threadId: "t-question", maxCharacters: 100 },
    ]) {
      const error = await toolInputError(setup.client, "t3_thread", args);
      expect(error.code).toBe("invalid_input");
    }
  });
});

describe("t3_thread and the projection routes", () => {
  type BoundedRead = SimEnvironmentModel["httpThreadBounded"];
  async function withBounded<T>(replace: (original: BoundedRead) => BoundedRead, run: () => Promise<T>) {
    const model = setup.sim.environment("alpha").model;
    const original = model.httpThreadBounded.bind(model);
    model.httpThreadBounded = replace(original);
    try {
      return await run();
    } finally {
      model.httpThreadBounded = original;
    }
  }

  it("reports the bounded window's history bounds", async () => {
    const out = await withBounded(
      (original) => (threadId) => {
        const answer = original(threadId);
        if (answer.kind !== "ok") return answer;
        return {
          kind: "ok",
          body: { ...(answer.body as object), hasMoreHistory: true, payloadBudgetExceeded: true },
        };
      },
      () => setup.call("t3_thread", { environment: "alpha", threadId: "t-long" }),
    );
    expect(out.history).toEqual({ complete: false, payloadBudgetExceeded: true });
  });

  it("keeps a request the projection lacks visible, pointing to T3 instead of an answer", async () => {
    const out = await withBounded(
      (original) => (threadId) => {
        const answer = original(threadId);
        if (answer.kind !== "ok") return answer;
        const body = answer.body as { projection: Record<string, unknown> };
        return { kind: "ok", body: { ...body, projection: { ...body.projection, runtimeRequests: [] } } };
      },
      () => setup.call("t3_thread", { environment: "alpha", threadId: "t-question" }),
    );
    expect(out.state).toBe("needs_intervention");
    const request = (out.pendingRequests as PendingRequestOut[])[0] as PendingRequestOut;
    expect(request.content).toBeNull();
    expect(request.nextAction).toEqual({ type: "inspect_in_t3", reason: "request_detail_not_in_snapshot" });
  });

  it("reads the full snapshot from a server without the bounded route", async () => {
    const model = setup.sim.environment("alpha").model;
    const full = model.httpThread.bind(model);
    let fullReads = 0;
    model.httpThread = (threadId) => {
      fullReads++;
      return full(threadId);
    };
    try {
      const out = await withBounded(
        () => () => ({ kind: "error", status: 404, body: {} }),
        () => setup.call("t3_thread", { environment: "alpha", threadId: "t-question" }),
      );
      expect(fullReads).toBe(1);
      expect(out.history).toEqual({ complete: true, payloadBudgetExceeded: false });
      expect((out.pendingRequests as PendingRequestOut[])[0]?.nextAction.tool).toBe(
        "t3_escrever_runtime_request_answer",
      );
    } finally {
      model.httpThread = full;
    }
  });

  it("answers a thread removed between the shell and the projection like an unknown thread", async () => {
    const unknown = await setup.callError("t3_thread", { environment: "alpha", threadId: "t-nowhere" });
    // Both projection routes: after the test above this connection knows the bounded route as
    // absent (ADR 0009) and reads the full snapshot directly.
    const model = setup.sim.environment("alpha").model;
    const full = model.httpThread.bind(model);
    model.httpThread = () => full("t-removed-meanwhile");
    const vanished = await withBounded(
      (original) => () => original("t-removed-meanwhile"),
      () => setup.callError("t3_thread", { environment: "alpha", threadId: "t-long" }),
    ).finally(() => {
      model.httpThread = full;
    });
    expect(vanished.replace("t-long", "ID")).toBe(unknown.replace("t-nowhere", "ID"));
  });
});

describe("t3_thread with an environment that does not answer", () => {
  let hanging: SimReadSetup;
  // gamma's deadline expires when the test has seen gamma hold the request; the answering
  // environments' deadlines never fire, however loaded the machine.
  const deadlines = new ManualDeadlines();
  beforeAll(async () => {
    hanging = await startByIdSetup([t3ThreadTool], { gamma: true, deadlines });
    hanging.sim.environment("gamma").faults.set({ hang: true });
  });
  afterAll(async () => {
    await hanging?.close();
  });
  const gammaTimingOut = <T>(call: () => Promise<T>, seen?: Promise<void>) =>
    deadlines.timingOut("gamma", call, seen);

  it("refuses instead of claiming absence, and names where the id was found", async () => {
    const held = nextHeld(hanging, "gamma");
    const text = await gammaTimingOut(() => hanging.callError("t3_thread", { threadId: "t-question" }), held);
    expect(text).toMatch(/^incomplete_scope: /);
    expect(text).toContain('found in "alpha"');
    expect(text).toContain('"gamma" (timeout)');
    const unknown = await gammaTimingOut(() => hanging.callError("t3_thread", { threadId: "t-nowhere" }));
    expect(unknown).toMatch(/^incomplete_scope: /);
    expect(unknown).toContain("not found in the environments that answered");
  });

  it("still refuses an id two answering environments hold as ambiguous, naming the silent one", async () => {
    const text = await gammaTimingOut(() => hanging.callError("t3_thread", { threadId: "t-shared" }));
    expect(text).toMatch(/^ambiguous_thread: /);
    expect(text).toContain('"alpha", "beta"');
    expect(text).toContain('"gamma" (timeout)');
  });

  it("still reads an answering environment when it is named", async () => {
    const out = await hanging.call("t3_thread", { environment: "alpha", threadId: "t-question" });
    expect(out.state).toBe("needs_intervention");
  });

  it("turns the named environment's silence into the tool's error", async () => {
    const text = await gammaTimingOut(() =>
      hanging.callError("t3_thread", { environment: "gamma", threadId: "t-anything" }),
    );
    expect(text).toMatch(/^timeout: /);
  });
});

describe("t3_thread with an environment that does not answer, on real timers", () => {
  let hanging: SimReadSetup;
  beforeAll(async () => {
    // The real default: a short deadline, and only the stalled environment is read, so no
    // healthy environment can miss it on a loaded machine.
    hanging = await startByIdSetup([t3ThreadTool], { gamma: true, limits: { perEnvironmentTimeoutMs: 200 } });
    hanging.sim.environment("gamma").faults.set({ hang: true });
  });
  afterAll(async () => {
    await hanging?.close();
  });

  it("times out the named environment's silence on the real deadline", async () => {
    const held = nextHeld(hanging, "gamma");
    const text = await hanging.callError("t3_thread", { environment: "gamma", threadId: "t-anything" });
    await held;
    expect(text).toMatch(/^timeout: /);
    expect(text).toContain("200 ms");
  });
});
