import { callTool, type SpawnedServe, spawnServe } from "@t3-connector/test-support/spawned-serve";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SlowAndFast, startSlowAndFast } from "./support/slow-and-fast.js";

// The defect of issue 20: a batch whose deadline expires while thread reads are still in flight
// answered, then the process died of an unhandled rejection. Here the real built
// `t3-connector serve` is spawned over stdio; `slow` sits behind a proxy that holds every thread
// read 700 ms, so twelve reads four at a time cannot finish inside the 1 s deadline.
let world: SlowAndFast;
let serve: SpawnedServe;

beforeAll(async () => {
  world = await startSlowAndFast();
  serve = await spawnServe(world.config.configPath);
}, 60_000);

afterAll(async () => {
  await serve?.close();
  await world?.close();
});

const threadIds = (alias: string) => world.threadIds(alias);

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
    await world.proxy.idle();
    expect(world.proxy.delayedCount()).toBeLessThan(12);
    // The reads the deadline cut short have ended; the process is still there and serving.
    const second = await callTool(serve.client, "t3_thread", {
      environment: "fast",
      threadId: threadIds("fast")[0],
    });
    expect(second.threadId).toBe(threadIds("fast")[0]);
    expect(serve.stderr()).not.toContain("unexpected failure");
  });
});
