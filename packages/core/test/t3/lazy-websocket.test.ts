import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket, { WebSocketServer } from "ws";
import { lazyNodeWebSocketFactory, type WebSocketClass } from "../../src/t3/rpc/socket.js";

// `ws` is loaded when the first T3 socket opens (ADR 0060). A socket asked for while it loads
// must open once it is there; one closed before that must never reach the server.
let server: WebSocketServer;
let url: string;
let connections = 0;

beforeAll(async () => {
  server = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/ws`;
  server.on("connection", (socket) => {
    connections += 1;
    socket.on("error", () => undefined);
  });
});

afterAll(async () => {
  for (const client of server.clients) client.terminate();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** A loader the test releases, and how many times the factory called it. */
function heldLoader() {
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const loader = {
    calls: 0,
    release,
    load: async (): Promise<WebSocketClass> => {
      loader.calls += 1;
      await held;
      return WebSocket;
    },
  };
  return loader;
}

describe("the T3 WebSocket factory loads ws on the first socket", () => {
  it("opens a socket asked for while ws loads, once it is there, and loads ws once", async () => {
    const loader = heldLoader();
    const factory = lazyNodeWebSocketFactory(loader.load);
    const before = connections;
    const first = factory(url, {});
    const opened = new Promise<void>((resolve) => first.addEventListener("open", () => resolve()));
    loader.release();
    await opened;
    const second = factory(url, {});
    await new Promise<void>((resolve) => second.addEventListener("open", () => resolve()));
    expect(loader.calls).toBe(1);
    expect(connections - before).toBe(2);
    first.close();
    second.close();
  });

  it("never opens a socket closed before ws arrived, and reports its close", async () => {
    const loader = heldLoader();
    const factory = lazyNodeWebSocketFactory(loader.load);
    const before = connections;
    const socket = factory(url, {});
    const closed = new Promise<{ code?: number }>((resolve) =>
      socket.addEventListener("close", (event) => resolve(event)),
    );
    socket.close();
    loader.release();
    expect((await closed).code).toBe(1006);
    // A socket that had opened would have reached the server by now: open another one and wait
    // for its connection, which the server sees after any earlier one.
    const probe = factory(url, {});
    await new Promise<void>((resolve) => probe.addEventListener("open", () => resolve()));
    expect(connections - before).toBe(1);
    probe.close();
  });
});
