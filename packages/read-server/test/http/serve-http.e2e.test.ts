import { chmod, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type Simulator, startSimulator } from "@t3-connector/t3-sim";
import { type SimConfig, writeSimConfig } from "@t3-connector/test-support/sim-config";
import { callTool } from "@t3-connector/test-support/spawned-serve";
import { toolInputError } from "@t3-connector/test-support/tool-input-error";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { READ_TOOL_NAMES } from "../../src/read-tool-list.js";
import { startRun, threadIdByTitle } from "../e2e/support/scenario.js";
import {
  connectHttpClient,
  httpServeUntilExit,
  mcpHeaders,
  rawRequest,
  type SpawnedHttpServe,
  spawnHttpServe,
  toolCallBody,
  writeBearerTokenFile,
} from "./support/spawned-http-serve.js";

// The real built `t3-connector serve --http` (the run's global setup builds dist/), spawned with a bearer token file and driven by the
// MCP SDK's Streamable HTTP client and by raw HTTP requests, against two simulated environments.
let sim: Simulator;
let config: SimConfig;
let authDir: string;
let bearer: { path: string; token: string };
let serve: SpawnedHttpServe;
let client: Client;

beforeAll(async () => {
  sim = await startSimulator({
    environments: [
      { alias: "alpha", seed: "demo", shellSuppression: false },
      { alias: "beta", seed: "demo" },
    ],
  });
  config = await writeSimConfig(sim);
  authDir = await mkdtemp(path.join(os.tmpdir(), "t3-connector-http-"));
  bearer = await writeBearerTokenFile(authDir);
  serve = await spawnHttpServe(config.configPath, ["--port", "0", "--auth-token-file", bearer.path]);
  client = await connectHttpClient(serve.ready.url, bearer.token);
}, 200_000);

afterAll(async () => {
  await client?.close();
  await serve?.stop();
  await sim?.close();
  await config?.remove();
  if (authDir !== undefined) await rm(authDir, { recursive: true, force: true });
});

const mcpUrl = () => serve.ready.url;

/** The status of a client that fails to connect, from the SDK's own error. */
async function connectStatus(token?: string): Promise<number | undefined> {
  try {
    const refused = await connectHttpClient(mcpUrl(), token);
    await refused.close();
    return 200;
  } catch (error) {
    return error instanceof StreamableHTTPError ? error.code : undefined;
  }
}

describe("serve --http (issue 13, done when)", () => {
  it("with the bearer the SDK client lists the 15 tools and calls t3_threads; without it 401; Host evil.example 403; /healthz 200", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([...READ_TOOL_NAMES].sort());
    const threads = await callTool(client, "t3_threads", { limit: 5 });
    expect(threads.complete).toBe(true);
    expect((threads.threads as unknown[]).length).toBe(5);

    expect(await connectStatus()).toBe(401);
    const evil = await rawRequest(mcpUrl(), {
      method: "POST",
      headers: mcpHeaders({ host: "evil.example", authorization: `Bearer ${bearer.token}` }),
      body: toolCallBody(1, "t3_threads", {}),
    });
    expect(evil.status).toBe(403);
    expect((await rawRequest(`${serve.origin}/healthz`)).status).toBe(200);
  });
});

describe("serve --http", () => {
  it("prints one JSON ready line on stdout with the URL, and says on stderr that a token is required", async () => {
    expect(serve.ready).toMatchObject({
      url: `${serve.origin}/mcp`,
      auth: "bearer",
      tools: 15,
      environments: ["alpha", "beta"],
    });
    expect(new URL(serve.ready.url).hostname).toBe("127.0.0.1");
    await serve.stderrContains("bearer token required");
    expect(serve.stderr()).not.toContain(bearer.token);
  });

  it("keeps t3_aguardar_thread bounded exactly as on stdio: it returns by its timeout, and a longer one is refused", async () => {
    const threadId = threadIdByTitle(sim.environment("beta"), "Docs rewrite");
    const started = performance.now();
    const waited = await callTool(client, "t3_aguardar_thread", {
      environment: "beta",
      threadId,
      timeoutMs: 1_000,
    });
    expect(waited).toMatchObject({ state: "running", returnReason: "timeout", timedOut: true });
    expect(performance.now() - started).toBeLessThan(4_000);
    const refused = await toolInputError(client, "t3_aguardar_thread", {
      environment: "beta",
      threadId,
      timeoutMs: 60_000,
    });
    expect(refused.code).toBe("invalid_input");
    expect(refused.message).toContain("timeoutMs");
  });

  it("wakes a wait when the run completes", async () => {
    const alpha = sim.environment("alpha");
    const threadId = threadIdByTitle(alpha, "Refactor auth middleware");
    await startRun(alpha, threadId, "Add a test [[sim:delay=800]] [[sim:reply=Done over HTTP.]]");
    const waited = await callTool(client, "t3_aguardar_thread", {
      environment: "alpha",
      threadId,
      timeoutMs: 5_000,
      includeLatestResponse: true,
    });
    expect(waited).toMatchObject({ returnReason: "terminal", state: "completed" });
    expect((waited.latestResponse as Record<string, unknown>).text).toContain("Done over HTTP.");
  });

  it("answers 401 with WWW-Authenticate: Bearer without a token and with a wrong one", async () => {
    expect(await connectStatus()).toBe(401);
    expect(await connectStatus("f".repeat(64))).toBe(401);
    for (const authorization of [
      undefined,
      `Bearer ${"0".repeat(64)}`,
      `Bearer ${bearer.token}x`,
      bearer.token,
    ]) {
      const answer = await rawRequest(mcpUrl(), {
        method: "POST",
        headers: mcpHeaders(authorization === undefined ? {} : { authorization }),
        body: toolCallBody(1, "t3_threads", {}),
      });
      expect(answer.status).toBe(401);
      expect(answer.headers["www-authenticate"]).toMatch(/^Bearer\b/);
      expect(answer.body).not.toContain("thread");
    }
  });

  it("answers 403 to a foreign Host or Origin, even with the right token, and accepts the loopback names", async () => {
    const call = (headers: Record<string, string>) =>
      rawRequest(mcpUrl(), {
        method: "POST",
        headers: mcpHeaders({ authorization: `Bearer ${bearer.token}`, ...headers }),
        body: toolCallBody(1, "t3_ambientes", { check: false }),
      });
    const port = new URL(serve.origin).port;
    expect((await call({ host: "evil.example" })).status).toBe(403);
    expect((await call({ host: `evil.example:${port}` })).status).toBe(403);
    expect((await call({ origin: "https://evil.example" })).status).toBe(403);
    expect((await call({ origin: "null" })).status).toBe(403);
    expect((await call({ host: `localhost:${port}` })).status).toBe(200);
    expect((await call({ origin: `http://localhost:${port}` })).status).toBe(200);
    expect((await rawRequest(`${serve.origin}/healthz`, { headers: { host: "evil.example" } })).status).toBe(
      403,
    );
  });

  it("/healthz answers 200 and /readyz shows each environment's state without secrets", async () => {
    const health = await rawRequest(`${serve.origin}/healthz`);
    expect(health.status).toBe(200);
    expect(JSON.parse(health.body)).toEqual({ status: "ok" });

    const ready = await rawRequest(`${serve.origin}/readyz`);
    expect(ready.status).toBe(200);
    expect(JSON.parse(ready.body)).toEqual({
      status: "ready",
      environments: [
        { alias: "alpha", state: "connected" },
        { alias: "beta", state: "connected" },
      ],
    });
    for (const env of sim.environments) {
      expect(ready.body).not.toContain(env.readToken);
      expect(ready.body).not.toContain(new URL(env.url).port);
      expect(ready.body).not.toContain(env.environmentId);
    }
    expect(ready.body).not.toContain(bearer.token);
    expect(ready.body).not.toContain(config.dir);
  });

  it("answers 413 to a body over the limit and 405 to GET and DELETE on /mcp", async () => {
    const big = Buffer.alloc(200 * 1024, " ");
    const tooLarge = await rawRequest(mcpUrl(), {
      method: "POST",
      headers: mcpHeaders({ authorization: `Bearer ${bearer.token}` }),
      body: big,
    });
    expect(tooLarge.status).toBe(413);
    for (const method of ["GET", "DELETE"]) {
      const answer = await rawRequest(mcpUrl(), {
        method,
        headers: { authorization: `Bearer ${bearer.token}` },
      });
      expect(answer.status).toBe(405);
      expect(answer.headers.allow).toBe("POST");
    }
  });

  it("exposes no write tool: a write tool name is unknown", async () => {
    const answer = await rawRequest(mcpUrl(), {
      method: "POST",
      headers: mcpHeaders({ authorization: `Bearer ${bearer.token}` }),
      body: toolCallBody(7, "t3_escrever_thread_send", {}),
    });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ id: 7, error: { code: -32602 } });
  });
});

describe("serve --http refuses to start", () => {
  it("on a non-loopback address without a token file (auth_token_required, exit 1, nothing listens)", async () => {
    const run = await httpServeUntilExit(config.configPath, ["--host", "0.0.0.0", "--port", "0"]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain("auth_token_required");
    expect(run.stderr).toContain("--auth-token-file");
  });

  it("with a token file readable by others (mode 644)", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "t3-connector-http-open-"));
    try {
      const open = await writeBearerTokenFile(dir);
      await chmod(open.path, 0o644);
      const run = await httpServeUntilExit(config.configPath, [
        "--port",
        "0",
        "--auth-token-file",
        open.path,
      ]);
      expect(run.code).toBe(1);
      expect(run.stdout).toBe("");
      expect(run.stderr).toContain("token_file_invalid");
      expect(run.stderr).toContain("must have mode 600");
      expect(run.stderr).not.toContain(open.token);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("serve --http shutdown", () => {
  it("on SIGTERM finishes the call in flight, refuses new ones and exits 0", async () => {
    const own = await spawnHttpServe(config.configPath, [
      "--port",
      "0",
      "--auth-token-file",
      bearer.path,
      "--log-level",
      "debug",
    ]);
    const threadId = threadIdByTitle(sim.environment("beta"), "Docs rewrite");
    const inFlight = rawRequest(own.ready.url, {
      method: "POST",
      headers: mcpHeaders({ authorization: `Bearer ${bearer.token}` }),
      body: toolCallBody(3, "t3_aguardar_thread", { environment: "beta", threadId, timeoutMs: 1_500 }),
    });
    await own.stderrContains("POST /mcp accepted (in flight: 1)");
    own.child.kill("SIGTERM");
    await own.stderrContains("SIGTERM: finishing the calls in flight");

    const later = await rawRequest(own.ready.url, {
      method: "POST",
      headers: mcpHeaders({ authorization: `Bearer ${bearer.token}` }),
      body: toolCallBody(4, "t3_threads", {}),
    }).catch((error: NodeJS.ErrnoException) => error.code);
    expect(later).toBe("ECONNREFUSED");

    const answer = await inFlight;
    expect(answer.status).toBe(200);
    const result = JSON.parse(answer.body) as {
      id: number;
      result: { structuredContent: Record<string, unknown> };
    };
    expect(result.id).toBe(3);
    expect(result.result.structuredContent).toMatchObject({ returnReason: "timeout", timedOut: true });
    expect(await own.exited).toBe(0);
  });
});
