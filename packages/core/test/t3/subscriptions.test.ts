import { randomUUID } from "node:crypto";
import { type SimEnvironment, type Simulator, startSimulator } from "@t3-connector/t3-sim";
import { ItemLog } from "@t3-connector/test-support/t3-fake-servers";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ConnectorError } from "../../src/errors.js";
import {
  resumableShellSubscription,
  resumableThreadSubscription,
  type ShellStreamItem,
  T3HttpClient,
  T3RpcClient,
  type ThreadStreamItem,
} from "../../src/t3/index.js";

let sim: Simulator;
let env: SimEnvironment;
const clients: T3RpcClient[] = [];
const subscriptions: { close(): void }[] = [];

beforeAll(async () => {
  sim = await startSimulator({ environments: [{ alias: "alpha", seed: "demo" }] });
  env = sim.environment("alpha");
});

afterAll(async () => {
  await sim.close();
});

afterEach(() => {
  for (const sub of subscriptions.splice(0)) sub.close();
  for (const client of clients.splice(0)) client.close();
  env.faults.clear();
});

/** A `connect()` for the subscription that records every subscribe request it sends. */
function recordingConnect(token: string) {
  const requests: { tag: string; payload: Record<string, unknown> }[] = [];
  let connects = 0;
  const connect = async () => {
    connects++;
    const client = await T3RpcClient.connect({
      baseUrl: env.url,
      token,
      onFrame: (direction, frame) => {
        const f = frame as { _tag?: string; tag?: string; payload?: Record<string, unknown> };
        if (direction === "sent" && f._tag === "Request" && f.tag) {
          requests.push({ tag: f.tag, payload: f.payload ?? {} });
        }
      },
    });
    clients.push(client);
    return client;
  };
  return { connect, requests, connects: () => connects };
}

async function operator(): Promise<T3RpcClient> {
  const client = await T3RpcClient.connect({ baseUrl: env.url, token: env.operateToken });
  clients.push(client);
  return client;
}

async function rename(threadId: string, title: string): Promise<void> {
  await (await operator()).dispatchCommand({
    type: "thread.metadata.update",
    commandId: randomUUID(),
    threadId,
    title,
  });
}

async function firstThreadId(): Promise<string> {
  const shell = await new T3HttpClient({ baseUrl: env.url, token: env.readToken }).getShell();
  const id = shell.threads[0]?.id;
  if (!id) throw new Error("the demo seed has no thread");
  return id;
}

describe("resumableThreadSubscription", () => {
  it("resumes after a dropped socket with afterSequence and delivers every event once", async () => {
    const threadId = await firstThreadId();
    const recorder = recordingConnect(env.readToken);
    const log = new ItemLog<ThreadStreamItem>();
    const reconnects: ConnectorError[] = [];
    const sub = resumableThreadSubscription({
      connect: recorder.connect,
      threadId,
      requestCompletionMarker: true,
      onItem: log.push,
      reconnectDelayMs: 10,
      onReconnect: ({ error }) => reconnects.push(error),
    });
    subscriptions.push(sub);
    await log.waitFor((item) => item.kind === "synchronized");

    await rename(threadId, "before the drop");
    const before = await log.waitFor(
      (item) =>
        item.kind === "event" && (item.event.payload as { title?: string })?.title === "before the drop",
    );
    const lastSeen = before.kind === "event" ? before.sequence : -1;

    env.dropSockets();
    await rename(threadId, "after the drop");
    await log.waitFor(
      (item) =>
        item.kind === "event" && (item.event.payload as { title?: string })?.title === "after the drop",
    );
    // The resubscription ends its catch-up with a second marker.
    await log.waitFor(() => log.items.filter((item) => item.kind === "synchronized").length >= 2);

    expect(reconnects.map((error) => error.code)).toContain("connection_lost");
    const subscribes = recorder.requests.filter((r) => r.tag === "orchestration.subscribeThread");
    expect(subscribes.length).toBeGreaterThanOrEqual(2);
    expect(subscribes[0]?.payload.afterSequence).toBeUndefined();
    expect(subscribes[1]?.payload.afterSequence).toBe(lastSeen);

    const sequences = log.items.flatMap((item) => (item.kind === "event" ? [item.sequence] : []));
    expect(new Set(sequences).size).toBe(sequences.length);
    expect([...sequences].sort((a, b) => a - b)).toEqual(sequences);
    expect(log.items.filter((item) => item.kind === "synchronized").length).toBeGreaterThanOrEqual(2);
    expect(log.items.filter((item) => item.kind === "snapshot")).toHaveLength(1);

    sub.close();
    await expect(sub.done).resolves.toBeUndefined();
  });

  it("starts after the sequence of an HTTP read", async () => {
    const threadId = await firstThreadId();
    const { snapshotSequence } = await new T3HttpClient({ baseUrl: env.url, token: env.readToken }).getThread(
      threadId,
    );
    const recorder = recordingConnect(env.readToken);
    const log = new ItemLog<ThreadStreamItem>();
    const sub = resumableThreadSubscription({
      connect: recorder.connect,
      threadId,
      afterSequence: snapshotSequence,
      requestCompletionMarker: true,
      onItem: log.push,
    });
    subscriptions.push(sub);
    await log.waitFor((item) => item.kind === "synchronized");
    expect(recorder.requests[0]?.payload.afterSequence).toBe(snapshotSequence);
    expect(log.items.every((item) => item.kind !== "event" || item.sequence > snapshotSequence)).toBe(true);
  });

  it("stops at once on a failure a new socket cannot cure", async () => {
    const recorder = recordingConnect(env.readToken);
    const sub = resumableThreadSubscription({
      connect: recorder.connect,
      threadId: randomUUID(),
      onItem: () => {},
    });
    const error = await sub.done.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: "rpc_failure" });
    expect(recorder.connects()).toBe(1);
  });

  it("gives up after the bounded number of reconnect attempts with a clear error", async () => {
    let attempts = 0;
    const sub = resumableThreadSubscription({
      connect: async () => {
        attempts++;
        throw new ConnectorError("unavailable", "T3 is unreachable");
      },
      threadId: "t1",
      onItem: () => {},
      maxReconnectAttempts: 2,
      reconnectDelayMs: 1,
    });
    const error = await sub.done.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ConnectorError);
    expect(error).toMatchObject({
      code: "connection_lost",
      details: { attempts: 2, lastCode: "unavailable" },
    });
    expect((error as Error).message).toContain("gave up after 2 reconnect attempts");
    expect(attempts).toBe(3);
  });

  it("stops when its signal aborts, without reconnecting", async () => {
    const threadId = await firstThreadId();
    const recorder = recordingConnect(env.readToken);
    const controller = new AbortController();
    const log = new ItemLog<ThreadStreamItem>();
    const sub = resumableThreadSubscription({
      connect: recorder.connect,
      threadId,
      onItem: log.push,
      signal: controller.signal,
    });
    await log.waitFor((item) => item.kind === "snapshot");
    controller.abort();
    await expect(sub.done).resolves.toBeUndefined();
    expect(recorder.connects()).toBe(1);
  });
});

function showsTitle(item: ShellStreamItem, threadId: string, title: string): boolean {
  if (item.kind === "thread.updated") return item.thread.id === threadId && item.thread.title === title;
  if (item.kind === "snapshot")
    return item.snapshot.threads.some((t) => t.id === threadId && t.title === title);
  return false;
}

describe("resumableShellSubscription", () => {
  it("resumes after a dropped socket and drops the repeated snapshot and replayed updates", async () => {
    const threadId = await firstThreadId();
    const recorder = recordingConnect(env.readToken);
    const log = new ItemLog<ShellStreamItem>();
    const sub = resumableShellSubscription({
      connect: recorder.connect,
      requestCompletionMarker: true,
      onItem: log.push,
      reconnectDelayMs: 10,
    });
    subscriptions.push(sub);
    await log.waitFor((item) => item.kind === "synchronized");
    // T3 sends the first snapshot twice (same sequence); the resumable stream delivers it once.
    expect(log.items.filter((item) => item.kind === "snapshot")).toHaveLength(1);

    await rename(threadId, "shell before the drop");
    await log.waitFor(
      (item) => item.kind === "thread.updated" && item.thread.title === "shell before the drop",
    );
    const synchronizedBefore = log.items.filter((item) => item.kind === "synchronized").length;

    env.dropSockets();
    await rename(threadId, "shell after the drop");
    // Depending on when the resubscribe lands, the change arrives live or inside the fresh snapshot.
    await log.waitFor((item) => showsTitle(item, threadId, "shell after the drop"));
    await log.waitFor(
      () => log.items.filter((item) => item.kind === "synchronized").length > synchronizedBefore,
    );

    const subscribes = recorder.requests.filter((r) => r.tag === "orchestration.subscribeShell");
    expect(subscribes.length).toBeGreaterThanOrEqual(2);
    expect(typeof subscribes[1]?.payload.afterSequence).toBe("number");

    const updates = log.items.flatMap((item) =>
      item.kind === "thread.updated" ? [`${item.thread.id}@${item.sequence}`] : [],
    );
    expect(new Set(updates).size).toBe(updates.length);
    const titles = log.items.flatMap((item) =>
      item.kind === "thread.updated" && item.thread.id === threadId ? [item.thread.title] : [],
    );
    expect(titles.filter((title) => title === "shell before the drop")).toHaveLength(1);
    sub.close();
    await expect(sub.done).resolves.toBeUndefined();
  });
});
