import { type Simulator, startSimulator } from "@t3-connector/t3-sim";
import { type SimConfig, writeSimConfig } from "@t3-connector/test-support/sim-config";
import {
  callTool,
  callToolError,
  type SpawnedServe,
  spawnServe,
} from "@t3-connector/test-support/spawned-serve";
import { toolInputError } from "@t3-connector/test-support/tool-input-error";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BOARD_HTML } from "../../src/board/board-html.generated.js";
import { BOARD_RESOURCE_URI } from "../../src/board/board-resource.js";
import { READ_TOOL_NAMES } from "../../src/read-tool-list.js";
import { startRun, threadIdByTitle } from "./support/scenario.js";

// The real built `t3-connector serve`, spawned and driven over stdio by the MCP SDK client,
// against four simulated environments: two healthy ones (alpha, beta) and two that are healthy at
// start-up but go wrong later: `slow` answers past the per-environment deadline and `mirror`
// starts answering as another environment. (A mis-scoped token never gets this far: start-up
// refuses it, see startup-refusal.test.ts.)
let sim: Simulator;
let config: SimConfig;
let serve: SpawnedServe;

type Row = Record<string, unknown>;
const rows = (value: unknown) => value as Row[];

beforeAll(async () => {
  sim = await startSimulator({
    environments: [
      // Every shell commit sent at once: the wait test reads the running state right after
      // starting a run, which current T3's 50 ms coalescing of shell rows would delay.
      { alias: "alpha", seed: "demo", shellSuppression: false },
      { alias: "beta", seed: "demo" },
      { alias: "slow", seed: "demo" },
      { alias: "mirror", seed: "demo" },
    ],
  });
  config = await writeSimConfig(sim);
  serve = await spawnServe(config.configPath);
}, 200_000);

afterAll(async () => {
  await serve?.close();
  await sim?.close();
  await config?.remove();
});

describe("the spawned read server", () => {
  it("lists exactly the fifteen read tools, each read-only with an output schema", async () => {
    const { tools } = await serve.client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([...READ_TOOL_NAMES].sort());
    for (const tool of tools) {
      expect(tool.annotations).toMatchObject({
        readOnlyHint: true,
        destructiveHint: false,
        openWorldHint: false,
      });
      expect(tool.outputSchema).toBeDefined();
    }
    await serve.stderrContains("read-only MCP server on stdio, 15 tools");
  });

  it("serves the board from the bundled bin at the address t3_control_plane links to", async () => {
    const { tools } = await serve.client.listTools();
    const plane = tools.find((tool) => tool.name === "t3_control_plane");
    const uri = (plane?._meta?.ui as { resourceUri?: string } | undefined)?.resourceUri;
    expect(uri).toBe(BOARD_RESOURCE_URI);
    const read = await serve.client.readResource({ uri: BOARD_RESOURCE_URI });
    expect(read.contents[0]).toMatchObject({ mimeType: "text/html;profile=mcp-app", text: BOARD_HTML });
  });

  it("t3_ambientes lists every configured environment with its availability", async () => {
    const answer = await callTool(serve.client, "t3_ambientes");
    const environments = rows(answer.environments);
    expect(environments.map((env) => env.alias)).toEqual(["alpha", "beta", "slow", "mirror"]);
    for (const env of environments) expect(env.available).toBe(true);
  });

  it("pages t3_threads across every environment with cursors: each thread once, newest first", async () => {
    const seen: Row[] = [];
    let cursor: string | undefined;
    let pages = 0;
    let total = -1;
    do {
      const page = await callTool(serve.client, "t3_threads", { limit: 7, ...(cursor ? { cursor } : {}) });
      expect(page.complete).toBe(true);
      total = page.total as number;
      seen.push(...rows(page.threads));
      cursor = page.truncated ? (page.nextCursor as string) : undefined;
      pages++;
    } while (cursor !== undefined && pages < 50);
    expect(pages).toBeGreaterThanOrEqual(3);
    expect(seen).toHaveLength(total);
    const keys = seen.map((thread) => `${(thread.environment as Row).alias}/${thread.threadId}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(new Set(seen.map((thread) => (thread.environment as Row).alias))).toEqual(
      new Set(["alpha", "beta", "slow", "mirror"]),
    );
    const updated = seen.map((thread) => thread.updatedAt as string);
    expect([...updated].sort().reverse()).toEqual(updated);
  });

  it("pages t3_projetos and t3_buscar_threads with cursors too", async () => {
    const first = await callTool(serve.client, "t3_projetos", { environment: "alpha", limit: 2 });
    expect(first.truncated).toBe(true);
    const second = await callTool(serve.client, "t3_projetos", {
      environment: "alpha",
      limit: 2,
      cursor: first.nextCursor,
    });
    const titles = [...rows(first.projects), ...rows(second.projects)].map((project) => project.title);
    expect(titles).toEqual(["scratch", "t3-connector", "website"]);

    const found = await callTool(serve.client, "t3_buscar_threads", { search: "test", limit: 3 });
    expect(found.total as number).toBeGreaterThan(3);
    const next = await callTool(serve.client, "t3_buscar_threads", {
      search: "test",
      limit: 3,
      cursor: found.nextCursor,
    });
    expect(rows(next.threads).length).toBeGreaterThan(0);
    expect(rows(next.threads).map((t) => t.threadId)).not.toContain(rows(found.threads)[0]?.threadId);
  });

  it("refuses a cursor in another query", async () => {
    const page = await callTool(serve.client, "t3_threads", { limit: 2 });
    const text = await callToolError(serve.client, "t3_threads", {
      environment: "alpha",
      limit: 2,
      cursor: page.nextCursor,
    });
    expect(text).toMatch(/^invalid_cursor: /);
  });

  it("shows a thread waiting on a question with the request and the write tool that answers it", async () => {
    const found = await callTool(serve.client, "t3_buscar_threads", {
      search: "Choose test scope",
      match: "exact",
    });
    expect(found.total).toBe(4); // the same seeded title lives in every environment
    const inAlpha = rows(found.threads).find((thread) => (thread.environment as Row).alias === "alpha");
    const threadId = inAlpha?.threadId as string;
    expect(threadId).toBe(threadIdByTitle(sim.environment("alpha"), "Choose test scope"));

    const thread = await callTool(serve.client, "t3_thread", { environment: "alpha", threadId });
    expect(thread.state).toBe("needs_intervention");
    expect(thread.stateSource).toBe("pending_request");
    const [request] = rows(thread.pendingRequests);
    expect(request?.kind).toBe("user_input");
    expect(request?.nextAction).toMatchObject({
      tool: "t3_escrever_runtime_request_answer",
      input: { threadId, requestId: request?.requestId },
      responseField: "answers",
      requiresUserDecision: true,
    });

    const attention = await callTool(serve.client, "t3_atencao", { environment: "alpha" });
    expect(rows(attention.threads).map((t) => t.threadId)).toContain(threadId);
    const plane = await callTool(serve.client, "t3_control_plane", { environment: "alpha" });
    const needs = rows((plane.needsIntervention as Row).threads);
    expect(needs.find((item) => item.threadId === threadId)?.next).toEqual({
      tool: "t3_thread",
      input: { environment: "alpha", threadId },
    });
  });

  it("reports a run queued behind another as the active run's state, and the wait follows the active run", async () => {
    const threadId = threadIdByTitle(sim.environment("beta"), "Docs rewrite");
    const thread = await callTool(serve.client, "t3_thread", { environment: "beta", threadId });
    const activeRun = thread.activeRun as Row;
    expect(thread.state).toBe("running");
    expect(thread.stateSource).toBe("active_run");
    expect(thread.runId).toBe(activeRun.runId);
    expect(thread.latestRunId).not.toBe(activeRun.runId);

    const waited = await callTool(serve.client, "t3_aguardar_thread", {
      environment: "beta",
      threadId,
      timeoutMs: 1_000,
    });
    expect(waited).toMatchObject({
      runId: activeRun.runId,
      state: "running",
      returnReason: "timeout",
      timedOut: true,
    });
  });

  it("wakes a wait when the run completes", async () => {
    const alpha = sim.environment("alpha");
    const threadId = threadIdByTitle(alpha, "Refactor auth middleware");
    await startRun(
      alpha,
      threadId,
      "Add a test for expired tokens [[sim:delay=1500]] [[sim:reply=Added the test.]]",
    );
    const before = await callTool(serve.client, "t3_thread", { environment: "alpha", threadId });
    expect(before.state).toBe("running");

    const waited = await callTool(serve.client, "t3_aguardar_thread", {
      environment: "alpha",
      threadId,
      timeoutMs: 5_000,
      includeLatestResponse: true,
    });
    expect(waited).toMatchObject({
      returnReason: "terminal",
      terminal: true,
      timedOut: false,
      state: "completed",
    });
    expect(waited.runId).toBe((before.activeRun as Row).runId);
    expect((waited.latestResponse as Row).text).toContain("Added the test.");

    const messages = await callTool(serve.client, "t3_mensagens", {
      environment: "alpha",
      threadId,
      limit: 2,
    });
    expect(rows(messages.messages).map((message) => message.role)).toEqual(["user", "assistant"]);
  });

  it("reads several threads of different environments in one batch, failing per item", async () => {
    const items = [
      { environment: "alpha", threadId: threadIdByTitle(sim.environment("alpha"), "Deploy preview") },
      { environment: "beta", threadId: threadIdByTitle(sim.environment("beta"), "Run the test suite?") },
      { environment: "beta", threadId: "no-such-thread" },
    ];
    const batch = await callTool(serve.client, "t3_thread_read_batch", { items });
    expect(batch.summary).toEqual({ ok: 2, error: 1 });
    const [deploy, approval, missing] = rows(batch.items);
    expect(deploy).toMatchObject({ status: "ok", thread: { state: "failed" } });
    expect(approval).toMatchObject({ status: "ok", thread: { state: "needs_intervention" } });
    expect(missing).toMatchObject({ status: "error", error: { code: "thread_not_found" } });
  });

  it("lists provider instances of every environment from server.getConfig", async () => {
    const answer = await callTool(serve.client, "t3_providers", {});
    expect(answer.complete).toBe(true);
    expect(answer.total as number).toBeGreaterThan(0);
    const aliases = new Set(rows(answer.providers).map((p) => (p.environment as Row).alias));
    expect(aliases).toEqual(new Set(["alpha", "beta", "slow", "mirror"]));
  });

  it("answers an unknown environment, a missing thread and a legacy parameter with their errors", async () => {
    expect(await callToolError(serve.client, "t3_threads", { environment: "nowhere" })).toMatch(
      /^environment_unknown: .*alpha/,
    );
    expect(
      await callToolError(serve.client, "t3_thread", { environment: "alpha", threadId: "no-such-thread" }),
    ).toMatch(/^thread_not_found: /);
    const legacy = await toolInputError(serve.client, "t3_threads", { ambiente: "alpha" });
    expect(legacy.code).toBe("invalid_input");
    expect(legacy.hint).toContain('"ambiente" is now "environment"');
  });

  it("flags a slow environment and one answering as another environment in environmentFailures, never reading them", async () => {
    const slow = sim.environment("slow");
    const mirror = sim.environment("mirror");
    const firstPage = await callTool(serve.client, "t3_threads", { limit: 3 });
    expect(firstPage.complete).toBe(true);
    try {
      // mirror: a refused token drops the verified connection; the next one meets another environmentId.
      mirror.faults.set({ wrongEnvironmentId: "impostor-environment", expireTokens: true });
      await callToolError(serve.client, "t3_threads", { environment: "mirror" });
      mirror.faults.clear();
      mirror.faults.set({ wrongEnvironmentId: "impostor-environment" });
      slow.faults.set({ latencyMs: 4_500 });

      const sweep = await callTool(serve.client, "t3_threads", { limit: 50 });
      expect(sweep.complete).toBe(false);
      expect(rows(sweep.queriedEnvironments).map((env) => env.alias)).toEqual(
        expect.arrayContaining(["alpha", "beta"]),
      );
      const failures = Object.fromEntries(rows(sweep.environmentFailures).map((f) => [f.alias, f.code]));
      expect(failures).toEqual({ slow: "timeout", mirror: "environment_mismatch" });
      const listed = new Set(rows(sweep.threads).map((thread) => (thread.environment as Row).alias));
      expect(listed).toEqual(new Set(["alpha", "beta"]));

      // The cursor of the first page was bound to the environments that answered it.
      expect(
        await callToolError(serve.client, "t3_threads", { limit: 3, cursor: firstPage.nextCursor }),
      ).toMatch(/^coverage_changed: /);

      // Locating an id without environment refuses while an environment is missing.
      const alphaThread = threadIdByTitle(sim.environment("alpha"), "Deploy preview");
      expect(await callToolError(serve.client, "t3_thread", { threadId: alphaThread })).toMatch(
        /^incomplete_scope: /,
      );
    } finally {
      slow.faults.clear();
      mirror.faults.clear();
    }
  }, 60_000);
});
