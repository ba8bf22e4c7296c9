import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocketServer } from "ws";
import { isConnectorError } from "../../src/errors.js";
import { DEFAULT_MAX_FRAME_BYTES } from "../../src/t3/rpc/frames.js";
import { nodeWebSocketFactory } from "../../src/t3/rpc/socket.js";

// A hostile T3 sending one WebSocket frame past the cap: the socket stops reading it and says why,
// typed, instead of a generic socket failure (ADR 0020).
let server: WebSocketServer;
let url: string;

beforeAll(async () => {
  server = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/ws`;
  server.on("connection", (socket) => {
    socket.on("error", () => undefined);
    socket.send(Buffer.alloc(DEFAULT_MAX_FRAME_BYTES + 1, 0x20), { binary: false });
  });
});

afterAll(async () => {
  for (const client of server.clients) client.terminate();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe("the T3 WebSocket's cap on frames", () => {
  it("refuses a frame past maxPayload as response_too_large", async () => {
    const socket = nodeWebSocketFactory(url, {});
    const error = await new Promise<unknown>((resolve) => {
      socket.addEventListener("error", (event) => resolve(event.error));
    });
    socket.terminate?.();
    expect(isConnectorError(error, "response_too_large")).toBe(true);
    expect((error as Error).message).toContain(String(DEFAULT_MAX_FRAME_BYTES));
  });
});
