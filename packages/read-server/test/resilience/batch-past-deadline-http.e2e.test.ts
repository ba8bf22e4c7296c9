import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { callTool } from "@t3-connector/test-support/spawned-serve";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  connectHttpClient,
  mcpHeaders,
  rawRequest,
  type SpawnedHttpServe,
  spawnHttpServe,
} from "../http/support/spawned-http-serve.js";
import { type SlowAndFast, startSlowAndFast } from "./support/slow-and-fast.js";

// Issue 20 over HTTP: the real built `t3-connector serve --http`, spawned, with `slow` behind a
// proxy that holds every thread read 700 ms. A batch past its deadline, and many parallel POSTs
// each carrying a JSON-RPC batch, once ended the process; it must answer and keep answering.
let world: SlowAndFast;
let serve: SpawnedHttpServe;
let client: Client;
let exitedEarly: number | null | undefined;

beforeAll(async () => {
  world = await startSlowAndFast();
  serve = await spawnHttpServe(world.config.configPath, ["--port", "0"]);
  void serve.exited.then((code) => {
    exitedEarly = code;
  });
  client = await connectHttpClient(serve.ready.url);
}, 60_000);

afterAll(async () => {
  await client?.close();
  await serve?.stop();
  await world?.close();
});

const threadIds = (alias: string) => world.threadIds(alias);

async function stillServing(): Promise<void> {
  const [threadId] = threadIds("fast");
  const answer = await callTool(client, "t3_thread", { environment: "fast", threadId });
  expect(answer.threadId).toBe(threadId);
  expect(exitedEarly).toBeUndefined();
  expect(serve.stderr()).not.toContain("unexpected failure");
}

describe("serve --http with calls past their deadline", () => {
  it("answers a 12-thread batch of a slow environment by its 1 s deadline and keeps answering", async () => {
    const ids = threadIds("slow").slice(0, 12);
    const out = await callTool(client, "t3_thread_read_batch", {
      items: ids.map((threadId) => ({ environment: "slow", threadId })),
      timeoutMs: 1_000,
    });
    const codes = (out.items as Array<{ status: string; error?: { code: string } }>).map(
      (item) => item.error?.code ?? item.status,
    );
    expect(codes).toHaveLength(12);
    expect(codes).toContain("global_timeout");
    await world.proxy.idle();
    await stillServing();
  });

  it("stays up under 16 parallel POSTs of JSON-RPC batches; each batch counts as its calls", async () => {
    const slow = threadIds("slow");
    const fast = threadIds("fast");
    const items = Array.from({ length: 20 }, (_, index) =>
      index % 2 === 0
        ? { environment: "slow", threadId: slow[index % slow.length] }
        : { environment: "fast", threadId: fast[index % fast.length] },
    );
    const batchBody = (post: number, size: number) =>
      JSON.stringify(
        Array.from({ length: size }, (_, call) => ({
          jsonrpc: "2.0",
          id: post * 100 + call,
          method: "tools/call",
          params: { name: "t3_thread_read_batch", arguments: { items, timeoutMs: 1_000 } },
        })),
      );
    const answers = await Promise.all(
      Array.from({ length: 16 }, (_, post) =>
        rawRequest(serve.ready.url, { method: "POST", headers: mcpHeaders(), body: batchBody(post, 4) }),
      ),
    );
    const statuses = answers.map((answer) => answer.status);
    // Four calls per POST against 16 slots: some POSTs run, the others are told to come back.
    expect(statuses.every((status) => status === 200 || status === 429)).toBe(true);
    expect(statuses.filter((status) => status === 200).length).toBeGreaterThanOrEqual(1);
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(1);
    for (const answer of answers.filter((a) => a.status === 200)) {
      const results = JSON.parse(answer.body) as Array<{ result?: { isError?: boolean } }>;
      expect(results).toHaveLength(4);
      for (const result of results) expect(result.result?.isError).not.toBe(true);
    }

    // A batch with more calls than the server runs at once could never run: a JSON-RPC error says so.
    const tooMany = await rawRequest(serve.ready.url, {
      method: "POST",
      headers: mcpHeaders(),
      body: batchBody(99, 40),
    });
    expect(tooMany.status).toBe(400);
    const refusal = JSON.parse(tooMany.body) as { error: { code: number; message: string } };
    expect(refusal.error.code).toBe(-32600);
    expect(refusal.error.message).toContain("40 messages");

    await world.proxy.idle();
    await stillServing();
  });
});
