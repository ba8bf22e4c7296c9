import { ItemLog, type RawConnection, startRawT3 } from "@t3-connector/test-support/t3-fake-servers";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  resumableShellSubscription,
  resumableThreadSubscription,
  type ShellStreamItem,
  T3RpcClient,
  type ThreadStreamItem,
} from "../../src/t3/index.js";

// Overlapping replays are legal for T3 but the simulator never sends them; a bare server
// plays them here so the client's own dedupe is what the test sees.
let raw: Awaited<ReturnType<typeof startRawT3>>;
const clients: T3RpcClient[] = [];

beforeEach(async () => {
  raw = await startRawT3();
});

afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  await raw.close();
});

async function connect(): Promise<T3RpcClient> {
  const client = await T3RpcClient.connect({ baseUrl: raw.baseUrl, token: "raw-token", pingIntervalMs: 0 });
  clients.push(client);
  return client;
}

async function chunk(peer: RawConnection, requestId: unknown, values: unknown[]): Promise<void> {
  peer.send({ _tag: "Chunk", requestId, values });
  await peer.inbox.next("Ack");
}

const projection = (id: string) => ({ thread: { id, projectId: "p", title: "t" } });
const event = (sequence: number) => ({
  kind: "event",
  sequence,
  event: { type: "run.updated", payload: {} },
});
const threadShell = (id: string, title: string) => ({
  id,
  projectId: "p",
  title,
  status: "idle",
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:00.000Z",
});
const shellSnapshot = (sequence: number, extra: Record<string, unknown> = {}) => ({
  kind: "snapshot",
  snapshot: { schemaVersion: 2, snapshotSequence: sequence, threads: [], archivedThreads: [], projects: [] },
  ...extra,
});
const updated = (sequence: number, id: string, title: string) => ({
  kind: "thread.updated",
  sequence,
  location: "active",
  thread: threadShell(id, title),
});

describe("resumable subscriptions drop what they already delivered", () => {
  it("drops replayed thread events at or below the last sequence", async () => {
    const log = new ItemLog<ThreadStreamItem>();
    const sub = resumableThreadSubscription({
      connect,
      threadId: "t1",
      onItem: log.push,
      reconnectDelayMs: 1,
    });

    const first = await raw.nextConnection();
    const request1 = await first.inbox.next("Request");
    await chunk(first, request1.id, [
      { kind: "snapshot", snapshotSequence: 5, projection: projection("t1") },
    ]);
    await chunk(first, request1.id, [event(6), event(7)]);
    first.socket.terminate();

    const second = await raw.nextConnection();
    const request2 = await second.inbox.next("Request");
    expect(request2.payload).toEqual({ threadId: "t1", afterSequence: 7 });
    await chunk(second, request2.id, [event(6)]);
    await chunk(second, request2.id, [event(7), event(8)]);
    await chunk(second, request2.id, [{ kind: "synchronized" }]);
    await log.waitFor((item) => item.kind === "synchronized");

    expect(log.items.map((item) => (item.kind === "event" ? item.sequence : item.kind))).toEqual([
      "snapshot",
      6,
      7,
      8,
      "synchronized",
    ]);
    sub.close();
    await expect(sub.done).resolves.toBeUndefined();
  });

  it("dedupes shell updates per thread, since merged updates are not globally ordered", async () => {
    const log = new ItemLog<ShellStreamItem>();
    const sub = resumableShellSubscription({ connect, onItem: log.push, reconnectDelayMs: 1 });

    const first = await raw.nextConnection();
    const request1 = await first.inbox.next("Request");
    // T3's pair: the same snapshot twice, the copy with repository roots.
    await chunk(first, request1.id, [
      shellSnapshot(40),
      shellSnapshot(40, { resolvedRepositoryIdentityRoots: [] }),
    ]);
    await chunk(first, request1.id, [updated(44, "a", "A at 44")]);
    await chunk(first, request1.id, [updated(43, "b", "B at 43")]);
    first.socket.terminate();

    const second = await raw.nextConnection();
    const request2 = await second.inbox.next("Request");
    expect(request2.payload).toEqual({ afterSequence: 44 });
    // Surprise 14: the pair again (unchanged), then per-thread replays, one of them new.
    await chunk(second, request2.id, [
      shellSnapshot(40),
      shellSnapshot(40, { resolvedRepositoryIdentityRoots: [] }),
    ]);
    await chunk(second, request2.id, [updated(44, "a", "A at 44"), updated(43, "b", "B at 43")]);
    await chunk(second, request2.id, [updated(45, "b", "B at 45"), { kind: "synchronized" }]);
    await log.waitFor((item) => item.kind === "synchronized");

    const seen = log.items.map((item) => (item.kind === "thread.updated" ? item.thread.title : item.kind));
    expect(seen).toEqual(["snapshot", "A at 44", "B at 43", "B at 45", "synchronized"]);
    sub.close();
  });

  it("keeps the cursor below T3's metadata-only resume snapshot, so the replayed updates after it arrive", async () => {
    const log = new ItemLog<ShellStreamItem>();
    const sub = resumableShellSubscription({
      connect,
      onItem: log.push,
      reconnectDelayMs: 1,
      deliverRootsCopy: true,
    });

    const first = await raw.nextConnection();
    const request1 = await first.inbox.next("Request");
    await chunk(first, request1.id, [shellSnapshot(10), updated(11, "a", "A at 11")]);
    first.socket.terminate();

    const second = await raw.nextConnection();
    const request2 = await second.inbox.next("Request");
    expect(request2.payload).toEqual({ afterSequence: 11 });
    // Upstream ShellStream.ts: metadata only at the high-water mark, then the replay up to it.
    await chunk(second, request2.id, [shellSnapshot(14, { resolvedRepositoryIdentityRoots: ["/w"] })]);
    await chunk(second, request2.id, [updated(12, "c", "C at 12"), updated(14, "a", "A at 14")]);
    // A runtime enrichment refresh may announce a sequence ahead of live items still in flight.
    await chunk(second, request2.id, [shellSnapshot(20, { resolvedRepositoryIdentityRoots: ["/w"] })]);
    await chunk(second, request2.id, [updated(15, "b", "B at 15"), { kind: "synchronized" }]);
    await log.waitFor((item) => item.kind === "synchronized");

    const seen = log.items.map((item) =>
      item.kind === "thread.updated"
        ? item.thread.title
        : item.kind === "snapshot"
          ? `snapshot ${item.snapshot.snapshotSequence}`
          : item.kind,
    );
    expect(seen).toEqual([
      "snapshot 10",
      "A at 11",
      "snapshot 14",
      "C at 12",
      "A at 14",
      "snapshot 20",
      "B at 15",
      "synchronized",
    ]);
    sub.close();
    await sub.done;
  });

  it("resumes after the last delivered update even when a metadata-only snapshot announced a higher sequence", async () => {
    const log = new ItemLog<ShellStreamItem>();
    const sub = resumableShellSubscription({ connect, onItem: log.push, reconnectDelayMs: 1 });

    const first = await raw.nextConnection();
    const request1 = await first.inbox.next("Request");
    await chunk(first, request1.id, [
      shellSnapshot(10),
      shellSnapshot(30, { resolvedRepositoryIdentityRoots: [] }),
    ]);
    await chunk(first, request1.id, [updated(12, "a", "A at 12")]);
    first.socket.terminate();

    const second = await raw.nextConnection();
    const request2 = await second.inbox.next("Request");
    expect(request2.payload).toEqual({ afterSequence: 12 });
    // When resuming is impossible T3 sends a real snapshot: it replaces and moves the cursor.
    await chunk(second, request2.id, [shellSnapshot(40), { kind: "synchronized" }]);
    await log.waitFor((item) => item.kind === "synchronized");
    expect(log.items.map((item) => item.kind)).toEqual([
      "snapshot",
      "thread.updated",
      "snapshot",
      "synchronized",
    ]);
    sub.close();
  });
});
