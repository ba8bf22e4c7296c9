/**
 * Every read tool against a real-shaped 0.0.31 server: one whose bounded and history routes
 * answer the web app's HTML page (an installed T3) or a 503 text page (T3 run from source)
 * instead of a 404. The by-id tools fall back to the full snapshot after
 * asking once per connection.
 */

import type { SimReadSetup } from "@t3-connector/test-support/sim-context";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readToolDefinitions } from "../../src/tools/index.js";
import { startByIdSetup } from "./by-id-fixture.js";

const LONG_REPLY_START = "The start of a long reply.";

const VARIANTS = [
  { name: "installed (200 text/html)", profile: { compat: "0.0.31" as const } },
  { name: "from source (503 text/plain)", profile: { compat: "0.0.31" as const, webBuild: false } },
];

function boundedRequests(setup: SimReadSetup, alias: string): number {
  return setup.sim
    .environment(alias)
    .httpRequests.filter((request) => request.path.endsWith("/bounded") || request.path.endsWith("/history"))
    .length;
}

describe.each(VARIANTS)("read tools on a 0.0.31 server, $name", ({ profile }) => {
  let setup: SimReadSetup;
  beforeAll(async () => {
    setup = await startByIdSetup(readToolDefinitions, { profile });
  });
  afterAll(async () => {
    await setup?.close();
  });

  it("t3_thread reads the thread from the full snapshot, with its pending request", async () => {
    const out = await setup.call("t3_thread", { environment: "alpha", threadId: "t-question" });
    expect(out.state).toBe("needs_intervention");
    expect((out.pendingRequests as unknown[]).length).toBe(1);
  });

  it("t3_mensagens returns the messages of the full snapshot", async () => {
    const out = await setup.call("t3_mensagens", { environment: "alpha", threadId: "t-long" });
    // A full snapshot holds the whole history.
    expect(out.history).toEqual({ complete: true, payloadBudgetExceeded: false });
    const messages = out.messages as { role: string; text: string }[];
    expect(messages.map((message) => message.role)).toEqual(["user", "assistant"]);
    expect(messages.at(-1)?.text.startsWith(LONG_REPLY_START)).toBe(true);
  });

  it("t3_thread_read_batch reads threads of both environments", async () => {
    const out = await setup.call("t3_thread_read_batch", {
      items: [
        { environment: "alpha", threadId: "t-approval" },
        { environment: "beta", threadId: "t-beta" },
      ],
    });
    const items = out.items as { status: string }[];
    expect(items.map((item) => item.status)).toEqual(["ok", "ok"]);
    expect(out.allSucceeded).toBe(true);
  });

  it("asks for the missing route once per connection, then reads the full snapshot directly", async () => {
    const before = boundedRequests(setup, "alpha");
    for (const threadId of ["t-question", "t-long", "t-queued"]) {
      await setup.call("t3_thread", { environment: "alpha", threadId });
    }
    // The first test of this file already learned the absence on this connection.
    expect(boundedRequests(setup, "alpha") - before).toBe(0);
    expect(before).toBe(1);
  });

  it("answers the listing, search, attention, control-plane, provider and environment tools", async () => {
    const threads = await setup.call("t3_threads", { environment: "alpha" });
    expect((threads.threads as unknown[]).length).toBeGreaterThan(0);
    const found = await setup.call("t3_buscar_threads", { search: "scope" });
    expect((found.threads as { threadId: string }[]).map((thread) => thread.threadId)).toContain(
      "t-question",
    );
    const attention = await setup.call("t3_atencao", {});
    expect((attention.threads as { threadId: string }[]).map((thread) => thread.threadId)).toContain(
      "t-question",
    );
    const controlPlane = await setup.call("t3_control_plane", {});
    expect(controlPlane).toMatchObject({ complete: true, environmentFailures: [] });
    expect(JSON.stringify(controlPlane.needsIntervention)).toContain("t-question");
    const projects = await setup.call("t3_projetos", {});
    expect(JSON.stringify(projects)).toContain("p-main");
    const providers = await setup.call("t3_providers", { environment: "alpha" });
    expect(providers).toMatchObject({ source: "server.getConfig", complete: true });
    expect((providers.providers as unknown[]).length).toBeGreaterThan(0);
    const environments = await setup.call("t3_ambientes", {});
    expect(JSON.stringify(environments)).toContain("env-beta");
  });

  it("t3_aguardar_thread answers at once for a thread that needs the user", async () => {
    const out = await setup.call("t3_aguardar_thread", {
      environment: "alpha",
      threadId: "t-question",
      timeoutMs: 5_000,
    });
    expect(JSON.stringify(out)).toContain("needs_intervention");
  });
});
