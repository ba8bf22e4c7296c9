import { request } from "node:http";
import { type Simulator, startSimulator } from "@t3-connector/t3-sim";
import { captureStreams } from "@t3-connector/test-support/captured-io";
import { ManualDeadlines } from "@t3-connector/test-support/manual-deadlines";
import { type SimConfig, writeSimConfig } from "@t3-connector/test-support/sim-config";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { BackgroundService } from "../../src/http/background-service.js";
import { serveHttp } from "../../src/http/serve-http.js";
import type { HttpReadyLine } from "../../src/http/serve-http-announce.js";
import { readToolDefinitions } from "../../src/tools/index.js";
import { threadIdByTitle } from "../e2e/support/scenario.js";
import { mcpHeaders, rawRequest, toolCallBody } from "./support/spawned-http-serve.js";

// serveHttp in this process (so its limits can be narrowed and a background service plugged in),
// on a real socket, against the simulator, without a token on loopback.
let sim: Simulator;
let config: SimConfig;
let streams: ReturnType<typeof captureStreams>;
let ready: HttpReadyLine;
let stop: (signal: string) => void;
let exitCode: Promise<number>;
const serviceEvents: string[] = [];
/** Calls to `t3_aguardar_thread` stay in flight until the test expires their deadline. */
const deadlines = new ManualDeadlines();

const service: BackgroundService = {
  name: "recorder",
  start: async () => {
    serviceEvents.push("start");
  },
  stop: async () => {
    serviceEvents.push("stop");
  },
};

beforeAll(async () => {
  sim = await startSimulator({ environments: [{ alias: "beta", seed: "demo" }] });
  config = await writeSimConfig(sim);
  streams = captureStreams({ T3_CONNECTOR_CONFIG: config.configPath });
  exitCode = serveHttp(
    streams.io,
    readToolDefinitions,
    {
      host: "127.0.0.1",
      port: 0,
      allowedHosts: ["mcp.example.com"],
      allowedOrigins: ["https://chatgpt.com"],
    },
    {
      logLevel: "debug",
      limits: { maxConcurrentRequests: 1, maxBodyBytes: 4096 },
      deadlines,
      services: (context) => {
        expect(context.registry.environments.map((env) => env.alias)).toEqual(["beta"]);
        return [service];
      },
      stopSignal: new Promise((resolve) => {
        stop = resolve;
      }),
    },
  );
  ready = JSON.parse(await streams.stdoutLine()) as HttpReadyLine;
}, 60_000);

afterAll(async () => {
  stop?.("test end");
  await exitCode;
  await sim?.close();
  await config?.remove();
});

const IN_FLIGHT = "POST /mcp accepted (in flight: 1)";
const ANSWERED = "POST /mcp answered (in flight: 0)";

/** Resolves once a wait follows the thread's stream: its deadline then times out the run, not the lookup. */
const untilWaitSubscribed = () =>
  vi.waitFor(() => expect(sim.environment("beta").model.store.listenerCount).toBe(1), {
    timeout: 5_000,
    interval: 5,
  });

const wait = (id: number, timeoutMs: number) =>
  rawRequest(ready.url, {
    method: "POST",
    headers: mcpHeaders(),
    body: toolCallBody(id, "t3_aguardar_thread", {
      environment: "beta",
      threadId: threadIdByTitle(sim.environment("beta"), "Docs rewrite"),
      timeoutMs,
    }),
  });

describe("serveHttp with narrowed limits", () => {
  it("starts the background service before the ready line and serves without a token on loopback", async () => {
    expect(serviceEvents).toEqual(["start"]);
    expect(ready.auth).toBe("none");
    const answer = await rawRequest(ready.url, {
      method: "POST",
      headers: mcpHeaders(),
      body: toolCallBody(1, "t3_ambientes", { check: false }),
    });
    expect(answer.status).toBe(200);
  });

  it("answers an initialize whose protocolVersion is not a string with -32602 in one line", async () => {
    for (const protocolVersion of [20250618, null, { major: 2025 }, ["2025-06-18"]]) {
      const answer = await rawRequest(ready.url, {
        method: "POST",
        headers: mcpHeaders(),
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 9,
          method: "initialize",
          params: { protocolVersion, capabilities: {}, clientInfo: { name: "raw", version: "0" } },
        }),
      });
      expect(answer.status).toBe(400);
      const body = JSON.parse(answer.body) as { id: unknown; error: { code: number; message: string } };
      expect(body).toEqual({
        jsonrpc: "2.0",
        id: 9,
        error: { code: -32602, message: "Invalid params: initialize's protocolVersion must be a string" },
      });
      expect(body.error.message).not.toContain("\n");
    }
  });

  it("answers 429 with Retry-After past the concurrency limit, and serves again once the call ended", async () => {
    const accepted = streams.stderrCount(IN_FLIGHT);
    const first = wait(2, 1_000);
    await streams.stderrContainsTimes(IN_FLIGHT, accepted + 1);
    const second = await rawRequest(ready.url, {
      method: "POST",
      headers: mcpHeaders(),
      body: toolCallBody(3, "t3_ambientes", { check: false }),
    });
    expect(second.status).toBe(429);
    expect(second.headers["retry-after"]).toBe("1");
    await untilWaitSubscribed();
    deadlines.expireCall(1_000);
    expect((await first).status).toBe(200);
    const third = await rawRequest(ready.url, {
      method: "POST",
      headers: mcpHeaders(),
      body: toolCallBody(4, "t3_ambientes", { check: false }),
    });
    expect(third.status).toBe(200);
  });

  it("answers 413 to a chunked body that grows past the limit (no Content-Length to check first)", async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        ready.url,
        { method: "POST", headers: { ...mcpHeaders(), "transfer-encoding": "chunked" } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.once("error", reject);
      for (let chunk = 0; chunk < 4; chunk++) req.write(" ".repeat(2048));
      req.end(toolCallBody(5, "t3_ambientes", {}));
    });
    expect(status).toBe(413);
  });

  it("accepts the Host and Origin the operator added, and still refuses others", async () => {
    const port = new URL(ready.url).port;
    const call = (headers: Record<string, string>) =>
      rawRequest(ready.url, {
        method: "POST",
        headers: mcpHeaders(headers),
        body: toolCallBody(6, "t3_ambientes", { check: false }),
      });
    expect((await call({ host: "mcp.example.com" })).status).toBe(200);
    expect((await call({ host: `mcp.example.com:${port}` })).status).toBe(200);
    expect((await call({ host: "mcp.example.com:9999" })).status).toBe(403);
    expect((await call({ origin: "https://chatgpt.com" })).status).toBe(200);
    expect((await call({ origin: "https://chatgpt.com.evil.example" })).status).toBe(403);
  });

  it("answers a refused Host or Origin with a JSON body naming the header and the flag that allows it", async () => {
    const call = (headers: Record<string, string>) =>
      rawRequest(ready.url, {
        method: "POST",
        headers: mcpHeaders(headers),
        body: toolCallBody(7, "t3_ambientes", { check: false }),
      });
    const host = await call({ host: "tunnel.example.net" });
    expect(host.status).toBe(403);
    expect(host.headers["content-type"]).toContain("application/json");
    expect(JSON.parse(host.body)).toMatchObject({
      error: "host_not_allowed",
      header: "Host",
      seen: "tunnel.example.net",
      expected: expect.arrayContaining([new URL(ready.url).host]),
      fix: "--allowed-host tunnel.example.net",
      message:
        'Host "tunnel.example.net" is not allowed: restart serve --http with --allowed-host tunnel.example.net if this server is meant to answer to that name.',
    });
    // One log line per refused value, however often it comes.
    await call({ host: "tunnel.example.net" });
    expect(streams.stderr().split('refused Host "tunnel.example.net"').length - 1).toBe(1);
    const origin = await call({ origin: "https://page.example" });
    expect(origin.status).toBe(403);
    expect(JSON.parse(origin.body)).toMatchObject({ error: "origin_not_allowed", header: "Origin" });
    expect(JSON.parse(origin.body).message).toContain("--allowed-origin https://page.example");
  });

  it("refuses what a hostile page or client sends at the edge, and serves the names it should", async () => {
    const port = new URL(ready.url).port;
    const call = (
      headers: Record<string, string>,
      body: string | Buffer = toolCallBody(8, "t3_ambientes", { check: false }),
    ) => rawRequest(ready.url, { method: "POST", headers: mcpHeaders(headers), body });
    // IPv6 loopback literal with the port is one of the server's own names; without it, not.
    expect((await call({ host: `[::1]:${port}` })).status).toBe(200);
    expect((await call({ host: "[::1]" })).status).toBe(403);
    // A DNS-rebound name on our port, with the page's own Origin: refused on Host, before the body.
    const rebound = await call({
      host: `attacker.example:${port}`,
      origin: `http://attacker.example:${port}`,
    });
    expect(rebound.status).toBe(403);
    expect(JSON.parse(rebound.body)).toMatchObject({
      error: "host_not_allowed",
      seen: `attacker.example:${port}`,
    });
    // `Origin: null` (a sandboxed frame, a file) is never an allowed page.
    const opaque = await call({ origin: "null" });
    expect(opaque.status).toBe(403);
    expect(JSON.parse(opaque.body)).toMatchObject({ error: "origin_not_allowed", seen: "null" });
    // Bytes that are not UTF-8, and text that is not JSON: JSON-RPC parse errors, never a 500.
    for (const body of [Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]), "jsonrpc=2.0&method=tools/list"]) {
      const answer = await call({}, body);
      expect(answer.status).toBe(400);
      expect(JSON.parse(answer.body)).toMatchObject({ jsonrpc: "2.0", error: { code: -32700 }, id: null });
    }
    // A body of the wrong type is refused by the MCP transport, after the edge read it within the cap.
    expect((await call({ "content-type": "text/plain" })).status).toBe(415);
    // Declared over the cap: 413 naming the limit, unread.
    const large = await call({}, "x".repeat(5_000));
    expect(large.status).toBe(413);
    expect(JSON.parse(large.body)).toEqual({ error: "body_too_large", limit: 4096 });
  });

  it("a client that hangs up aborts its call and frees its slot at once (no 429 left behind)", async () => {
    const accepted = streams.stderrCount(IN_FLIGHT);
    const answered = streams.stderrCount(ANSWERED);
    const req = request(ready.url, { method: "POST", headers: mcpHeaders() });
    req.on("error", () => {});
    req.end(
      toolCallBody(8, "t3_aguardar_thread", {
        environment: "beta",
        threadId: threadIdByTitle(sim.environment("beta"), "Docs rewrite"),
        timeoutMs: 5_000,
      }),
    );
    await streams.stderrContainsTimes(IN_FLIGHT, accepted + 1);
    const hungUpAt = performance.now();
    req.destroy();
    await streams.stderrContainsTimes(ANSWERED, answered + 1);
    // The wait had 5 s left: only the hang-up can have ended it this early.
    expect(performance.now() - hungUpAt).toBeLessThan(4_000);
    const next = await rawRequest(ready.url, {
      method: "POST",
      headers: mcpHeaders(),
      body: toolCallBody(9, "t3_ambientes", { check: false }),
    });
    expect(next.status).toBe(200);
  });

  it("on stop, answers the call in flight first, then stops the background service, and resolves 0", async () => {
    const accepted = streams.stderrCount(IN_FLIGHT);
    const inFlight = wait(7, 1_000);
    await streams.stderrContainsTimes(IN_FLIGHT, accepted + 1);
    stop("SIGTERM");
    // The server has begun to stop with the call still in flight; then the call's deadline passes.
    await streams.stderrContains("SIGTERM: finishing the calls in flight");
    expect(serviceEvents).toEqual(["start"]);
    await untilWaitSubscribed();
    deadlines.expireCall(1_000);
    const answer = await inFlight;
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({
      id: 7,
      result: { structuredContent: { timedOut: true } },
    });
    expect(await exitCode).toBe(0);
    expect(serviceEvents).toEqual(["start", "stop"]);
    expect(streams.stderrCount(IN_FLIGHT)).toBe(accepted + 1);
  });
});
