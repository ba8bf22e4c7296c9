import { connect, type Socket } from "node:net";
import { IDLE_KEEP_ALIVE_MS } from "@t3-connector/core/http-edge";
import { type Simulator, startSimulator } from "@t3-connector/t3-sim";
import { captureStreams } from "@t3-connector/test-support/captured-io";
import { announcedIdleMs, keepAliveResponseHead } from "@t3-connector/test-support/keep-alive-hint";
import { type SimConfig, writeSimConfig } from "@t3-connector/test-support/sim-config";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HttpLimits } from "../../src/http/http-options.js";
import { serveHttp } from "../../src/http/serve-http.js";
import type { HttpReadyLine } from "../../src/http/serve-http-announce.js";
import { readToolDefinitions } from "../../src/tools/index.js";
import { mcpHeaders, rawRequest, toolCallBody } from "./support/spawned-http-serve.js";

// What a hostile local process can send to `serve --http` (issue 20, Low findings): slow bodies,
// half-open headers, JSON-RPC batches. serveHttp runs in this process so its limits can be
// narrowed: two call slots, eight connections, a 2 s header and request timeout. A second server
// with a 200 ms request timeout shows the timeout cutting a slow body without 2 s of waiting.
let sim: Simulator;
let config: SimConfig;
let ready: HttpReadyLine;
const servers: Array<{ stop: (signal: string) => void; exitCode: Promise<number> }> = [];
const opened: Socket[] = [];

async function startServe(limits: Partial<HttpLimits>): Promise<HttpReadyLine> {
  const streams = captureStreams({ T3_CONNECTOR_CONFIG: config.configPath });
  let stop: (signal: string) => void = () => undefined;
  const exitCode = serveHttp(
    streams.io,
    readToolDefinitions,
    { host: "127.0.0.1", port: 0, allowedHosts: [], allowedOrigins: [] },
    {
      limits,
      stopSignal: new Promise((resolve) => {
        stop = resolve;
      }),
    },
  );
  servers.push({ stop, exitCode });
  return JSON.parse(await streams.stdoutLine()) as HttpReadyLine;
}

beforeAll(async () => {
  sim = await startSimulator({ environments: [{ alias: "beta", seed: "demo" }] });
  config = await writeSimConfig(sim);
  ready = await startServe({
    maxConcurrentRequests: 2,
    maxConnections: 8,
    headersTimeoutMs: 2_000,
    requestTimeoutMs: 2_000,
  });
}, 60_000);

afterAll(async () => {
  for (const socket of opened) socket.destroy();
  for (const server of servers) server.stop("test end");
  await Promise.all(servers.map((server) => server.exitCode));
  await sim?.close();
  await config?.remove();
});

const host = (url = ready.url) => new URL(url).host;

/** A POST whose body (100 bytes announced) has sent one byte so far and sends no more. */
const slowBody = (url = ready.url) =>
  `POST /mcp HTTP/1.1\r\nHost: ${host(url)}\r\ncontent-type: application/json\r\n` +
  "accept: application/json, text/event-stream\r\ncontent-length: 100\r\n\r\n{";

/** A raw connection that has written `text` and stays open; resolves once connected. */
async function openWriting(
  text: string,
  serverUrl = ready.url,
): Promise<{ socket: Socket; closed: Promise<void>; isClosed(): boolean }> {
  const url = new URL(serverUrl);
  const socket = connect(Number(url.port), url.hostname);
  opened.push(socket);
  socket.on("error", () => undefined);
  socket.resume();
  let isClosed = false;
  const closed = new Promise<void>((resolve) =>
    socket.once("close", () => {
      isClosed = true;
      resolve();
    }),
  );
  await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
  socket.write(text);
  return { socket, closed, isClosed: () => isClosed };
}

function call(id: number) {
  return rawRequest(ready.url, {
    method: "POST",
    headers: mcpHeaders(),
    body: toolCallBody(id, "t3_ambientes", { check: false }),
  });
}

describe("serve --http under what a hostile local process sends", () => {
  it("slow bodies hold no call slot", async () => {
    const slow = await Promise.all(Array.from({ length: 4 }, () => openWriting(slowBody())));
    // Four bodies still arriving, two call slots: a call is served all the same.
    expect((await call(1)).status).toBe(200);
    expect(slow.filter((connection) => connection.isClosed())).toEqual([]);
    // Not left to the 2 s timeout: the next test needs the connection budget free.
    for (const connection of slow) connection.socket.destroy();
    await Promise.all(slow.map((connection) => connection.closed));
  });

  it("the request timeout cuts slow bodies, and the server serves on", async () => {
    const quick = await startServe({
      maxConcurrentRequests: 2,
      headersTimeoutMs: 200,
      requestTimeoutMs: 200,
    });
    const slow = await Promise.all(
      Array.from({ length: 4 }, () => openWriting(slowBody(quick.url), quick.url)),
    );
    // The server ends each slow request itself (the test never closes them) once its timeout passed.
    await Promise.all(slow.map((connection) => connection.closed));
    const answer = await rawRequest(quick.url, {
      method: "POST",
      headers: mcpHeaders(),
      body: toolCallBody(1, "t3_ambientes", { check: false }),
    });
    expect(answer.status).toBe(200);
  }, 15_000);

  it("half-open header connections cannot lock the server out", async () => {
    const halfOpen: Array<{ closed: Promise<void> }> = [];
    for (let index = 0; index < 20; index++) {
      halfOpen.push(await openWriting(`POST /mcp HTTP/1.1\r\nHost: ${host()}\r\n`));
    }
    // Twenty connections that never finish their headers, eight allowed: the oldest made room.
    expect((await call(2)).status).toBe(200);
    let closedCount = 0;
    for (const connection of halfOpen) void connection.closed.then(() => closedCount++);
    await Promise.all(halfOpen.slice(0, 12).map((connection) => connection.closed));
    expect(closedCount).toBeGreaterThanOrEqual(12);
  }, 15_000);

  it("tells keep-alive clients an idle timeout longer than a reverse proxy keeps its connections", async () => {
    // A proxy (Caddy keeps upstream connections 2 min) or a client that reuses a connection the
    // server has just closed gets ECONNRESET for a request serve never read: serve must outlast them.
    const head = await keepAliveResponseHead(
      Number(new URL(ready.url).port),
      host(),
      "/.well-known/oauth-protected-resource",
    );
    expect(announcedIdleMs(head)).toBe(IDLE_KEEP_ALIVE_MS);
    expect(IDLE_KEEP_ALIVE_MS).toBeGreaterThan(120_000);
  });

  it("counts a JSON-RPC batch as its calls: within the limit it runs, past it a JSON-RPC error", async () => {
    const batch = (size: number) =>
      JSON.stringify(
        Array.from({ length: size }, (_, index) => ({
          jsonrpc: "2.0",
          id: 10 + index,
          method: "tools/call",
          params: { name: "t3_ambientes", arguments: { check: false } },
        })),
      );
    const fits = await rawRequest(ready.url, { method: "POST", headers: mcpHeaders(), body: batch(2) });
    expect(fits.status).toBe(200);
    expect(JSON.parse(fits.body)).toHaveLength(2);

    const tooMany = await rawRequest(ready.url, { method: "POST", headers: mcpHeaders(), body: batch(3) });
    expect(tooMany.status).toBe(400);
    expect(JSON.parse(tooMany.body)).toMatchObject({ jsonrpc: "2.0", error: { code: -32600 }, id: null });
  });

  it("answers a body declared past the limit with 413 before a byte of it is sent, and serves on", async () => {
    const url = new URL(ready.url);
    // Headers only: 10 MB announced, nothing sent, the socket left open. Only a refusal from the
    // declared length can answer; the connection then ends (its body will never be read).
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(url.port), url.hostname);
      opened.push(socket);
      let text = "";
      socket.on("data", (chunk) => {
        text += chunk.toString("utf8");
      });
      socket.on("error", reject);
      socket.on("close", () => resolve(text));
      socket.write(
        `POST /mcp HTTP/1.1\r\nHost: ${host()}\r\ncontent-type: application/json\r\n` +
          `accept: application/json, text/event-stream\r\ncontent-length: ${10 * 1024 * 1024}\r\n\r\n`,
      );
    });
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(JSON.parse(answer.slice(answer.indexOf("{")))).toMatchObject({ error: "body_too_large" });
    expect((await call(3)).status).toBe(200);
  });

  it("answers JSON that does not parse with JSON-RPC -32700, before taking a slot", async () => {
    const answer = await rawRequest(ready.url, { method: "POST", headers: mcpHeaders(), body: "{not json" });
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toMatchObject({ error: { code: -32700 } });
  });
});
