import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Client } from "@modelcontextprotocol/client";
import { type Simulator, startSimulator } from "@t3-connector/t3-sim";
import {
  connectModernHttp,
  connectModernStdio,
  MODERN_REVISION,
  processEnv,
} from "@t3-connector/test-support/modern-client";
import { type SimConfig, writeSimConfig } from "@t3-connector/test-support/sim-config";
import { bin } from "@t3-connector/test-support/spawned-serve";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { READ_TOOL_NAMES } from "../../src/read-tool-list.js";
import { READ_SERVER_INSTRUCTIONS } from "../../src/server.js";
import {
  connectHttpClient,
  mcpHeaders,
  rawRequest,
  type SpawnedHttpServe,
  spawnHttpServe,
  writeBearerTokenFile,
} from "../http/support/spawned-http-serve.js";

// The real built `t3-connector serve`, over stdio and over `--http` with a bearer, driven by the
// SDK's v2 client pinned to MCP 2026-07-28 (no initialize, the per-request envelope,
// server/discover), beside a 2025 client of the v1 SDK on the same HTTP server (ADR 0046).
let sim: Simulator;
let config: SimConfig;
let authDir: string;
let bearer: { path: string; token: string };
let http: SpawnedHttpServe;
const clients: Array<{ close(): Promise<void> }> = [];

beforeAll(async () => {
  sim = await startSimulator({ environments: [{ alias: "alpha", seed: "demo" }] });
  config = await writeSimConfig(sim);
  authDir = await mkdtemp(path.join(os.tmpdir(), "t3-connector-2026-"));
  bearer = await writeBearerTokenFile(authDir);
  http = await spawnHttpServe(config.configPath, ["--port", "0", "--auth-token-file", bearer.path]);
}, 200_000);

afterAll(async () => {
  for (const client of clients) await client.close().catch(() => undefined);
  await http?.stop();
  await sim?.close();
  await config?.remove();
  if (authDir !== undefined) await rm(authDir, { recursive: true, force: true });
});

function kept<T extends { close(): Promise<void> }>(client: T): T {
  clients.push(client);
  return client;
}

/** What every 2026 client must see: the era, discovery, the tools, a read and a readable error. */
async function expectModernSession(client: Client): Promise<void> {
  expect(client.getProtocolEra()).toBe("modern");
  expect(client.getNegotiatedProtocolVersion()).toBe(MODERN_REVISION);
  const discovered = await client.discover();
  expect(discovered.supportedVersions).toContain(MODERN_REVISION);
  // 2026-07-28 names the server in every result's _meta rather than in an initialize answer.
  expect(discovered._meta?.["io.modelcontextprotocol/serverInfo"]).toMatchObject({ name: "t3-connector" });
  expect(discovered.capabilities.tools).toBeDefined();
  expect(discovered.instructions).toBe(READ_SERVER_INSTRUCTIONS);

  const { tools } = await client.listTools();
  expect(tools.map((tool) => tool.name).sort()).toEqual([...READ_TOOL_NAMES].sort());

  const threads = await client.callTool({ name: "t3_threads", arguments: { limit: 3 } });
  expect(threads.isError).toBeFalsy();
  const page = threads.structuredContent as { complete: boolean; threads: unknown[] };
  expect(page.complete).toBe(true);
  expect(page.threads.length).toBeGreaterThan(0);

  // ADR 0004 in the 2026 era too: a bad argument is a tool error naming the code and the fix.
  const refused = await client.callTool({ name: "t3_threads", arguments: { limit: "three" } });
  expect(refused.isError).toBe(true);
  expect(JSON.stringify(refused.content)).toContain("invalid_input");
  expect(refused._meta?.["t3-connector/error"]).toMatchObject({ code: "invalid_input" });
}

describe("a 2026-07-28 client (SDK v2) on t3-connector serve", () => {
  it("over stdio: discovers the server and reads threads", async () => {
    let stderr = "";
    const client = kept(
      await connectModernStdio(
        {
          command: process.execPath,
          args: [bin, "serve"],
          env: processEnv({ T3_CONNECTOR_CONFIG: config.configPath }),
        },
        { onStderr: (text) => (stderr += text) },
      ),
    );
    await expectModernSession(client);
    expect(stderr).not.toContain("stdio transport:");
  });

  it("over --http with the bearer: discovers the server and reads threads; without the bearer 401", async () => {
    await expectModernSession(kept(await connectModernHttp(http.ready.url, bearer.token)));
    await expect(connectModernHttp(http.ready.url)).rejects.toThrow(/401|Unauthorized/);
  });

  it("over --http a 2025 client (SDK v1) keeps its initialize session and plain JSON answers", async () => {
    const legacy = kept(await connectHttpClient(http.ready.url, bearer.token));
    expect(legacy.getServerVersion()).toMatchObject({ name: "t3-connector" });
    const threads = await legacy.callTool({ name: "t3_threads", arguments: { limit: 1 } });
    expect(threads.isError).toBeFalsy();
    const answer = await rawRequest(http.ready.url, {
      method: "POST",
      headers: mcpHeaders({ authorization: `Bearer ${bearer.token}`, "mcp-protocol-version": "2025-06-18" }),
      body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/list", params: {} }),
    });
    expect(answer.status).toBe(200);
    expect(answer.headers["content-type"]).toMatch(/^application\/json/);
  });

  it("answers an empty batch [] with -32600 Invalid Request, not 202", async () => {
    const answer = await rawRequest(http.ready.url, {
      method: "POST",
      headers: mcpHeaders({ authorization: `Bearer ${bearer.token}` }),
      body: "[]",
    });
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32600 } });
  });

  it("guards the 2026 leg like the 2025 one: foreign Host 403 and no bearer 401 before any MCP, a lying version header refused", async () => {
    const envelope = {
      "io.modelcontextprotocol/protocolVersion": MODERN_REVISION,
      "io.modelcontextprotocol/clientInfo": { name: "hostile", version: "0" },
      "io.modelcontextprotocol/clientCapabilities": {},
    };
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: envelope } });
    const modernHeaders = (extra: Record<string, string>) =>
      mcpHeaders({ "mcp-protocol-version": MODERN_REVISION, "mcp-method": "tools/list", ...extra });
    const port = new URL(http.ready.url).port;
    const rebinding = await rawRequest(http.ready.url, {
      method: "POST",
      headers: modernHeaders({ host: `evil.example:${port}`, authorization: `Bearer ${bearer.token}` }),
      body,
    });
    expect(rebinding.status).toBe(403);
    const anonymous = await rawRequest(http.ready.url, { method: "POST", headers: modernHeaders({}), body });
    expect(anonymous.status).toBe(401);
    const authorized = await rawRequest(http.ready.url, {
      method: "POST",
      headers: modernHeaders({ authorization: `Bearer ${bearer.token}` }),
      body,
    });
    expect(authorized.status, authorized.body).toBe(200);
    expect(JSON.parse(authorized.body)).toMatchObject({ id: 1, result: { tools: expect.any(Array) } });
    // The header says 2025-06-18, the envelope 2026-07-28: the SDK refuses the mismatch.
    const lying = await rawRequest(http.ready.url, {
      method: "POST",
      headers: modernHeaders({
        "mcp-protocol-version": "2025-06-18",
        authorization: `Bearer ${bearer.token}`,
      }),
      body,
    });
    expect(lying.status).toBeGreaterThanOrEqual(400);
    expect(JSON.parse(lying.body)).toMatchObject({ id: 1, error: { code: expect.any(Number) } });
  });
});
