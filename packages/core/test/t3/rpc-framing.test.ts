import {
  deferred,
  ItemLog,
  ManualTimers,
  type RawConnection,
  startRawT3,
} from "@t3-connector/test-support/t3-fake-servers";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ConnectorError } from "../../src/errors.js";
import { T3RpcClient, type ThreadStreamItem } from "../../src/t3/index.js";

// Framing cases the simulator cannot produce (malformed frames, a silent peer, array frames)
// run against a bare WebSocket server; timers are driven by hand, so nothing sleeps.
const PING_MS = 1_000;
const CALL_MS = 5_000;

let raw: Awaited<ReturnType<typeof startRawT3>>;
let timers: ManualTimers;
const clients: T3RpcClient[] = [];

beforeEach(async () => {
  raw = await startRawT3();
  timers = new ManualTimers();
});

afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  await raw.close();
});

async function connect(
  extra: { maxInFlight?: number } = {},
): Promise<{ client: T3RpcClient; peer: RawConnection }> {
  const peerPromise = raw.nextConnection();
  const client = await T3RpcClient.connect({
    baseUrl: raw.baseUrl,
    token: "raw-token",
    timers,
    pingIntervalMs: PING_MS,
    callTimeoutMs: CALL_MS,
    ...extra,
  });
  clients.push(client);
  return { client, peer: await peerPromise };
}

function exitSuccess(requestId: unknown, value: unknown) {
  return { _tag: "Exit", requestId, exit: { _tag: "Success", value } };
}

describe("Effect-RPC framing", () => {
  it("connects with the minted ticket and the protocol-2 query, never the bearer in the URL", async () => {
    const { peer } = await connect();
    const url = new URL(peer.request.url ?? "", "http://x");
    expect(url.pathname).toBe("/ws");
    expect(url.searchParams.get("wsTicket")).toBe("raw-ticket");
    expect(url.searchParams.get("orchestrationProtocol")).toBe("2");
    expect(peer.request.url).not.toContain("raw-token");
    expect(peer.request.headers.authorization).toBeUndefined();
  });

  it("decodes several messages sent in one array frame", async () => {
    const { client, peer } = await connect();
    const first = client.call("server.probe", {});
    const second = client.call("server.probe", {});
    const a = await peer.inbox.next("Request");
    const b = await peer.inbox.next("Request");
    peer.send([exitSuccess(b.id, { n: 2 }), exitSuccess(a.id, { n: 1 })]);
    await expect(first).resolves.toEqual({ n: 1 });
    await expect(second).resolves.toEqual({ n: 2 });
  });

  it("acknowledges a chunk only after every value of it was delivered", async () => {
    const { client, peer } = await connect();
    const hold = deferred();
    const log = new ItemLog<ThreadStreamItem>();
    const sub = client.subscribeThread({
      threadId: "t1",
      onItem: async (item) => {
        log.push(item);
        if (item.kind === "event" && item.sequence === 1) await hold.promise;
      },
    });
    const request = await peer.inbox.next("Request");
    expect(request.payload).toEqual({ threadId: "t1" });
    const event = (sequence: number) => ({
      kind: "event",
      sequence,
      event: { type: "thread.metadata-updated", payload: {} },
    });
    peer.send({ _tag: "Chunk", requestId: request.id, values: [event(1), event(2)] });
    await log.waitFor((item) => item.kind === "event" && item.sequence === 1);

    // A Ping sent now travels behind any Ack already sent; none may be there while value 1 is held.
    timers.fire(PING_MS);
    await peer.inbox.next("Ping");
    expect(peer.inbox.tags()).not.toContain("Ack");
    expect(log.items).toHaveLength(1);

    hold.resolve();
    const ack = await peer.inbox.next("Ack");
    expect(ack.requestId).toBe(request.id);
    expect(log.items.map((item) => (item.kind === "event" ? item.sequence : item.kind))).toEqual([1, 2]);

    peer.send({ _tag: "Chunk", requestId: request.id, values: [{ kind: "some.future-kind", sequence: 3 }] });
    const future = await log.waitFor((item) => item.kind === "unknown");
    expect(future).toMatchObject({ kind: "unknown", originalKind: "some.future-kind", sequence: 3 });
    await peer.inbox.next("Ack");
    sub.close();
    expect((await peer.inbox.next("Interrupt")).requestId).toBe(request.id);
    await expect(sub.done).resolves.toBeUndefined();
  });

  it("declares the peer dead when a Ping is still unanswered at the next tick", async () => {
    const { client, peer } = await connect();
    const closed = deferred<ConnectorError | undefined>();
    client.onClose((error) => closed.resolve(error));
    const pending = client.call("server.probe", {});
    await peer.inbox.next("Request");

    timers.fire(PING_MS);
    await peer.inbox.next("Ping");
    expect(client.isOpen).toBe(true);
    timers.fire(PING_MS); // no Pong came back

    await expect(pending).rejects.toMatchObject({ code: "connection_lost" });
    expect((await closed.promise)?.code).toBe("connection_lost");
    expect(client.isOpen).toBe(false);
    await expect(client.probe()).rejects.toMatchObject({ code: "unavailable" });
  });

  it("keeps a peer that answers every Ping", async () => {
    const { client, peer } = await connect();
    for (let round = 0; round < 3; round++) {
      timers.fire(PING_MS);
      await peer.inbox.next("Ping");
      peer.send({ _tag: "Pong" });
      // A round trip proves the Pong was processed before the next tick.
      const probe = client.call("server.probe", {});
      peer.send(exitSuccess((await peer.inbox.next("Request")).id, {}));
      await probe;
    }
    timers.fire(PING_MS);
    expect(client.isOpen).toBe(true);
  });

  it("fails every call with protocol_error when a frame is not JSON", async () => {
    const { client, peer } = await connect();
    const pending = client.call("server.probe", {});
    await peer.inbox.next("Request");
    peer.send("this is not json");
    await expect(pending).rejects.toMatchObject({ code: "protocol_error" });
    expect(client.isOpen).toBe(false);
  });

  it.each([
    [
      "a connection-level Defect",
      { _tag: "Defect", defect: "Unknown request tag: Bogus" },
      "Unknown request tag: Bogus",
    ],
    ["a ClientProtocolError", { _tag: "ClientProtocolError", error: { reason: "bad frame" } }, "bad frame"],
  ])("fails the connection with protocol_error on %s", async (_name, frame, text) => {
    const { client, peer } = await connect();
    const pending = client.call("server.probe", {});
    await peer.inbox.next("Request");
    peer.send(frame);
    const error = await pending.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectorError);
    expect(error).toMatchObject({ code: "protocol_error" });
    expect((error as Error).message).toContain(text);
    expect(client.isOpen).toBe(false);
  });

  it("ignores frames of unknown types and answers for requests no longer in flight", async () => {
    const { client, peer } = await connect();
    const pending = client.call("server.probe", {});
    const request = await peer.inbox.next("Request");
    peer.send({ _tag: "SomethingNewer", requestId: request.id });
    peer.send(exitSuccess("999", {}));
    peer.send(exitSuccess(request.id, { ok: true }));
    peer.send(exitSuccess(request.id, { duplicate: true }));
    await expect(pending).resolves.toEqual({ ok: true });
    expect(client.isOpen).toBe(true);
  });

  it("interrupts a call that misses its deadline and fails it with timeout", async () => {
    const { client, peer } = await connect();
    const pending = client.call("orchestration.dispatchCommand", { type: "thread.settle" });
    const request = await peer.inbox.next("Request");
    expect(timers.fire(CALL_MS)).toBe(1);
    await expect(pending).rejects.toMatchObject({ code: "timeout" });
    expect((await peer.inbox.next("Interrupt")).requestId).toBe(request.id);
    // The late answer is ignored, the socket stays usable.
    peer.send(exitSuccess(request.id, { sequence: 1 }));
    const next = client.call("server.probe", {});
    peer.send(exitSuccess((await peer.inbox.next("Request")).id, {}));
    await expect(next).resolves.toEqual({});
  });

  it("cancels a call when the caller's signal aborts", async () => {
    const { client, peer } = await connect();
    const controller = new AbortController();
    const pending = client.call("server.probe", {}, { signal: controller.signal });
    const request = await peer.inbox.next("Request");
    controller.abort();
    await expect(pending).rejects.toMatchObject({ code: "cancelled" });
    expect((await peer.inbox.next("Interrupt")).requestId).toBe(request.id);
  });

  it("refuses a call beyond the in-flight bound instead of queueing it", async () => {
    const { client, peer } = await connect({ maxInFlight: 2 });
    const a = client.call("server.probe", {});
    const b = client.call("server.probe", {});
    await expect(client.call("server.probe", {})).rejects.toMatchObject({ code: "too_many_in_flight" });
    const first = await peer.inbox.next("Request");
    peer.send(exitSuccess(first.id, {}));
    await a;
    const c = client.call("server.probe", {});
    const second = await peer.inbox.next("Request");
    const third = await peer.inbox.next("Request");
    peer.send([exitSuccess(second.id, {}), exitSuccess(third.id, {})]);
    await expect(Promise.all([b, c])).resolves.toEqual([{}, {}]);
  });

  it("ends a stream whose consumer throws, with that error, without acknowledging the chunk", async () => {
    const { client, peer } = await connect();
    const boom = new ConnectorError("invalid_input", "the consumer refused the item");
    const sub = client.subscribeThread({
      threadId: "t1",
      onItem: () => {
        throw boom;
      },
    });
    const request = await peer.inbox.next("Request");
    peer.send({ _tag: "Chunk", requestId: request.id, values: [{ kind: "synchronized" }] });
    await expect(sub.done).rejects.toBe(boom);
    expect((await peer.inbox.next("Interrupt")).requestId).toBe(request.id);
    expect(peer.inbox.tags()).not.toContain("Ack");
  });

  it("fails a stream whose known item does not decode, and interrupts it", async () => {
    const { client, peer } = await connect();
    const sub = client.subscribeThread({ threadId: "t1", onItem: () => {} });
    const request = await peer.inbox.next("Request");
    peer.send({
      _tag: "Chunk",
      requestId: request.id,
      values: [{ kind: "event", sequence: "not-a-number" }],
    });
    await expect(sub.done).rejects.toMatchObject({ code: "invalid_response" });
    expect((await peer.inbox.next("Interrupt")).requestId).toBe(request.id);
  });
});
