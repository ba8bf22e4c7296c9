import { type Simulator, startSimulator } from "@t3-connector/t3-sim";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callTool, type SpawnedServe, spawnServe } from "../e2e/support/spawned-serve.js";
import { type DelayingProxy, startDelayingProxy } from "../support/delaying-proxy.js";
import { type SimConfig, writeSimConfig } from "../support/sim-config.js";

// The defect of issue 20: a batch whose deadline expires while thread reads are still in flight
// answered, then the process died of an unhandled rejection. Here the real built
// `t3-connector serve` is spawned over stdio; `slow` sits behind a proxy that holds every thread
// read 700 ms, so twelve reads four at a time cannot finish inside the 1 s deadline.
let sim: Simulator;
let proxy: DelayingProxy;
let config: SimConfig;
let serve: SpawnedServe;

beforeAll(async () => {
  sim = await startSimulator({
    environments: [
      { alias: "slow", seed: "demo" },
      { alias: "fast", seed: "demo" },
    ],
  });
  proxy = await startDelayingProxy({
    target: sim.environment("slow").url,
    delayed: (path) => path.startsWith("/api/orchestration/threads/"),
    delayMs: 700,
  });
  config = await writeSimConfig(sim, { url: { slow: proxy.url } });
  serve = await spawnServe(config.configPath);
}, 60_000);

afterAll(async () => {
  await serve?.close();
  await proxy?.close();
  await sim?.close();
  await config?.remove();
});

function threadIds(alias: string): string[] {
  const outcome = sim.environment(alias).model.httpShell();
  if (outcome.kind !== "ok") throw new Error("no shell");
  return (outcome.body as { threads: Array<{ id: string }> }).threads.map((thread) => thread.id);
}

describe("serve over stdio with a batch past its deadline", () => {
  it("answers the batch with global_timeout for the leftovers and keeps answering afterwards", async () => {
    const ids = threadIds("slow").slice(0, 12);
    expect(ids).toHaveLength(12);
    const out = await callTool(serve.client, "t3_thread_read_batch", {
      items: ids.map((threadId) => ({ environment: "slow", threadId })),
      timeoutMs: 1_000,
    });
    const items = out.items as Array<{ status: string; error?: { code: string } }>;
    expect(items).toHaveLength(12);
    const codes = new Set(items.map((item) => item.error?.code ?? item.status));
    expect(codes.has("global_timeout")).toBe(true);
    expect(out.complete).toBe(false);

    // Nothing started after the deadline: three rounds of four 700 ms reads cannot all begin
    // within 1 s, so some threads were never asked for.
    await proxy.idle();
    expect(proxy.delayedCount()).toBeLessThan(12);
    // The reads the deadline cut short have ended; the process is still there and serving.
    const second = await callTool(serve.client, "t3_thread", {
      environment: "fast",
      threadId: threadIds("fast")[0],
    });
    expect(second.threadId).toBe(threadIds("fast")[0]);
    expect(serve.stderr()).not.toContain("unexpected failure");
  });
});
