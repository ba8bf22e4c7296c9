import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocketServer } from "ws";
import { isConnectorError } from "../../src/errors.js";
import { T3HttpClient } from "../../src/t3/http-client.js";
import { T3RpcClient } from "../../src/t3/rpc/client.js";

// A hostile T3 answering a call with a WebSocket frame past the connector's limit (issue 20): the
// frame is refused from its header, unread, as response_too_large naming the environment and the
// limit, and the socket is closed with 1009 ("message too big").
const MAX_FRAME_BYTES = 64 * 1024;
const HOSTILE_FRAME = "x".repeat(4 * 1024 * 1024);

let server: WebSocketServer;
let baseUrl: string;
const closeCodes: number[] = [];
let closed: Promise<void>;

beforeAll(async () => {
  server = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  closed = new Promise((resolve) => {
    server.on("connection", (socket) => {
      // Any call is answered with one frame far over the limit.
      socket.once("message", () => socket.send(HOSTILE_FRAME));
      socket.once("close", (code) => {
        closeCodes.push(code);
        resolve();
      });
    });
  });
});

afterAll(async () => {
  for (const client of server.clients) client.terminate();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe("the T3 socket's cap on frames", () => {
  it("fails the call waiting for an oversized frame with response_too_large, naming the environment and the limit", async () => {
    const rpc = await T3RpcClient.connect({
      baseUrl,
      token: "token",
      socketAuth: "bearer",
      // The alias comes from the HTTP client the registry builds for the environment.
      http: new T3HttpClient({ baseUrl, environment: "hostile" }),
      maxFrameBytes: MAX_FRAME_BYTES,
      pingIntervalMs: 0,
    });
    const error = await rpc.call("server.getConfig", {}).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );

    expect(isConnectorError(error, "response_too_large")).toBe(true);
    const message = (error as Error).message;
    expect(message).toContain('environment "hostile"');
    expect(message).toContain("GET /ws frame");
    expect(message).toContain(String(MAX_FRAME_BYTES));
    expect((error as { details?: Record<string, unknown> }).details).toMatchObject({
      environment: "hostile",
      limitBytes: MAX_FRAME_BYTES,
    });
    // The connection is over, and says why: a new socket would be sent the same frame.
    expect(rpc.isOpen).toBe(false);
    await closed;
    expect(closeCodes).toEqual([1009]);
  });
});
