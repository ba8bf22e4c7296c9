import { ManualDeadlines } from "@t3-connector/test-support/manual-deadlines";
import type { SimReadSetup } from "@t3-connector/test-support/sim-context";
import { toolInputError } from "@t3-connector/test-support/tool-input-error";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { t3ThreadTool } from "../../src/tools/t3_thread.js";
import { t3ThreadReadBatchTool } from "../../src/tools/t3_thread_read_batch.js";
import { countReads, nextHeld, startByIdSetup } from "./by-id-fixture.js";

interface ItemOut {
  index: number;
  environment: { alias: string; environmentId: string } | null;
  requestedEnvironment?: string;
  threadId: string;
  status: "ok" | "error";
  observedAt?: string;
  thread?: Record<string, unknown>;
  error?: { code: string; reason: string };
}

interface BatchOut {
  returned: number;
  summary: { ok: number; error: number };
  allSucceeded: boolean;
  complete: boolean;
  environments: Array<{ alias: string; environmentId: string; status: string; observedAt?: string }>;
  items: ItemOut[];
}

let setup: SimReadSetup;
beforeAll(async () => {
  setup = await startByIdSetup([t3ThreadTool, t3ThreadReadBatchTool]);
});
afterAll(async () => {
  await setup?.close();
});

async function batch(args: Record<string, unknown>): Promise<BatchOut> {
  return (await setup.call("t3_thread_read_batch", args)) as unknown as BatchOut;
}

describe("t3_thread_read_batch", () => {
  it("answers each target in input order with t3_thread's exact result or its own error", async () => {
    const out = await batch({
      items: [
        { environment: "alpha", threadId: "t-question" },
        { environment: "beta", threadId: "t-beta" },
        { environment: "gamma", threadId: "t-question" },
        { environment: "alpha", threadId: "t-hidden" },
        { environment: "alpha", threadId: "t-nowhere" },
      ],
    });
    expect(out.items.map((item) => [item.index, item.status, item.error?.code])).toEqual([
      [0, "ok", undefined],
      [1, "ok", undefined],
      [2, "error", "environment_not_allowed"],
      [3, "error", "thread_not_found"],
      [4, "error", "thread_not_found"],
    ]);
    expect(out.returned).toBe(5);
    expect(out.summary).toEqual({ ok: 2, error: 3 });
    expect(out.allSucceeded).toBe(false);
    // Only final answers failed: reading again would not change them.
    expect(out.complete).toBe(true);

    const [question, betaItem, unknownEnv, hidden, missing] = out.items as [
      ItemOut,
      ItemOut,
      ItemOut,
      ItemOut,
      ItemOut,
    ];
    expect(unknownEnv.environment).toBeNull();
    expect(unknownEnv.requestedEnvironment).toBe("gamma");
    expect(hidden.error?.reason.replace("t-hidden", "ID")).toBe(
      missing.error?.reason.replace("t-nowhere", "ID"),
    );
    expect(betaItem.environment).toEqual({ alias: "beta", environmentId: "env-beta" });

    const single = await setup.call("t3_thread", { environment: "alpha", threadId: "t-question" });
    expect(question.thread).toEqual(single);
    const pending = (question.thread?.pendingRequests ?? []) as Array<{ nextAction: { tool: string } }>;
    expect(pending[0]?.nextAction.tool).toBe("t3_escrever_runtime_request_answer");

    expect(out.environments.map((env) => [env.alias, env.status])).toEqual([
      ["alpha", "ok"],
      ["beta", "ok"],
    ]);
    const alphaObserved = out.environments[0]?.observedAt;
    expect(alphaObserved).toEqual(expect.any(String));
    expect(question.observedAt).toBe(alphaObserved);
    expect(hidden.observedAt).toBe(alphaObserved);
  });

  it("reads one shell per environment and a repeated target once, answering every position", async () => {
    const alpha = countReads(setup.sim.environment("alpha").model);
    const beta = countReads(setup.sim.environment("beta").model);
    const out = await batch({
      items: [
        { environment: "alpha", threadId: "t-question" },
        { environment: "alpha", threadId: "t-approval" },
        { environment: "env-alpha", threadId: "t-question" },
        { environment: "beta", threadId: "t-beta" },
        { environment: "alpha", threadId: "t-question" },
        { environment: "alpha", threadId: "t-queued" },
      ],
    });
    expect(out.allSucceeded).toBe(true);
    expect(alpha.shell).toBe(1);
    expect(beta.shell).toBe(1);
    expect(Object.fromEntries(alpha.bounded)).toEqual({ "t-question": 1, "t-approval": 1, "t-queued": 1 });
    const repeated = [0, 2, 4].map((index) => out.items[index]);
    for (const item of repeated) {
      expect(item?.status).toBe("ok");
      expect(item?.thread).toEqual(repeated[0]?.thread);
      expect(item?.environment).toEqual({ alias: "alpha", environmentId: "env-alpha" });
    }
    const queued = out.items[5]?.thread as Record<string, unknown>;
    expect(queued.state).toBe("running");
    expect(queued.latestRunStatus).toBe("queued");
  });

  it("reads at most four projections of one environment at a time", async () => {
    const connection = await setup.context.registry.resolve("alpha").connect();
    const original = connection.http.getThreadBounded.bind(connection.http);
    let inFlight = 0;
    let most = 0;
    connection.http.getThreadBounded = async (...args) => {
      inFlight++;
      most = Math.max(most, inFlight);
      try {
        return await original(...args);
      } finally {
        inFlight--;
      }
    };
    // A small answer delay makes concurrent reads overlap; it bounds nothing about time.
    setup.sim.environment("alpha").faults.set({ latencyMs: 30 });
    try {
      const ids = ["t-question", "t-approval", "t-queued", "t-long", "t-archived", "t-shared"];
      const out = await batch({ items: ids.map((threadId) => ({ environment: "alpha", threadId })) });
      expect(out.allSucceeded).toBe(true);
      expect(most).toBe(4);
    } finally {
      setup.sim.environment("alpha").faults.clear();
      connection.http.getThreadBounded = original;
    }
  });

  it("refuses an empty list, more than 20 targets, loose item keys and legacy keys as an invalid_input tool error", async () => {
    const target = { environment: "alpha", threadId: "t-question" };
    for (const args of [
      { items: [] },
      { items: Array.from({ length: 21 }, () => target) },
      { items: [{ ...target, ambiente: "alpha" }] },
      { items: [{ threadId: "t-question" }] },
      { items: [target], limite: 3 },
      { items: [target], timeoutMs: 500 },
    ]) {
      const error = await toolInputError(setup.client, "t3_thread_read_batch", args);
      expect(error.code).toBe("invalid_input");
    }
  });
});

describe("t3_thread_read_batch with an environment that does not answer", () => {
  let hanging: SimReadSetup;
  // The call's deadline expires once beta holds its request and alpha has answered: no real
  // time is waited, and alpha never races the deadline on a loaded machine.
  const deadlines = new ManualDeadlines();
  beforeAll(async () => {
    hanging = await startByIdSetup([t3ThreadReadBatchTool], { deadlines });
    hanging.sim.environment("beta").faults.set({ hang: true });
  });
  afterAll(async () => {
    await hanging?.close();
  });

  it("fails only that environment's items, as a transient failure", async () => {
    const alphaReads = countReads(hanging.sim.environment("alpha").model);
    // alpha is done once its projection was served and no read of alpha holds a deadline any more.
    const alphaAnswered = vi.waitFor(
      () => {
        expect(alphaReads.bounded.get("t-approval")).toBe(1);
        expect(deadlines.running("alpha")).toBe(0);
      },
      { timeout: 5_000, interval: 5 },
    );
    const betaHeld = nextHeld(hanging, "beta");
    const answer = hanging.call("t3_thread_read_batch", {
      items: [
        { environment: "beta", threadId: "t-beta" },
        { environment: "alpha", threadId: "t-approval" },
      ],
      timeoutMs: 1_000,
    });
    await Promise.all([betaHeld, alphaAnswered, deadlines.started()]);
    deadlines.expireCall();
    const out = (await answer) as unknown as BatchOut;
    expect(out.items[0]?.status).toBe("error");
    expect(out.items[0]?.error?.code).toBe("global_timeout");
    expect(out.items[1]?.status).toBe("ok");
    expect(out.complete).toBe(false);
    expect(out.allSucceeded).toBe(false);
    expect(out.environments.find((env) => env.alias === "beta")?.status).toBe("error");
  });
});

describe("t3_thread_read_batch with an environment slower than its own deadline", () => {
  let slow: SimReadSetup;
  // alpha's deadline expires once alpha holds the request; beta's never fires, however loaded the machine.
  const deadlines = new ManualDeadlines();
  beforeAll(async () => {
    slow = await startByIdSetup([t3ThreadReadBatchTool], { deadlines });
    slow.sim.environment("alpha").faults.set({ hang: true });
  });
  afterAll(async () => {
    await slow?.close();
  });

  it("reports the environment's timeout on each of its items and keeps the others", async () => {
    const out = (await deadlines.timingOut(
      "alpha",
      () =>
        slow.call("t3_thread_read_batch", {
          items: [
            { environment: "alpha", threadId: "t-question" },
            { environment: "beta", threadId: "t-beta" },
            { environment: "alpha", threadId: "t-approval" },
          ],
          timeoutMs: 10_000,
        }),
      nextHeld(slow, "alpha"),
    )) as unknown as BatchOut;
    expect(out.items.map((item) => item.error?.code ?? item.status)).toEqual(["timeout", "ok", "timeout"]);
    expect(out.summary).toEqual({ ok: 1, error: 2 });
    expect(out.complete).toBe(false);
  });
});
