/**
 * `t3_pedir_aprovacao` on the real spawned `t3-connector-write bridge`, from the SDK's v2 client
 * pinned to MCP 2026-07-28 (ADR 0046), against the real gate over the simulator. That revision has
 * no server-to-client requests: a client that declared URL elicitation is asked to open the link
 * through an `input_required` round, and its retried call carries the person's answer and then
 * waits on the same request. The page's own API denies the request; nothing grants a lease here
 * (the passkey approval is covered for 2025 clients in bridge-waits-for-the-approval.test.ts).
 */
import type { Client } from "@modelcontextprotocol/client";
import { builtBin } from "@t3-connector/test-support/built-bins";
import { openEventStream } from "@t3-connector/test-support/event-stream-client";
import { postJson } from "@t3-connector/test-support/gate-http";
import {
  connectModernStdio,
  MODERN_REVISION,
  type ModernClientOptions,
  processEnv,
} from "@t3-connector/test-support/modern-client";
import { pageOrigin, type RealGate, startRealGate } from "@t3-connector/test-support/real-gate";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

type Body = Record<string, unknown>;
const BIN = builtBin("t3-connector-write");

let real: RealGate | undefined;
const clients: Client[] = [];

beforeAll(async () => {
  real = await startRealGate();
}, 180_000);

afterAll(async () => {
  for (const client of clients) await client.close().catch(() => undefined);
  await real?.close();
});

function gate(): RealGate {
  if (real === undefined) throw new Error("setup did not finish");
  return real;
}

async function bridgeClient(options: ModernClientOptions = {}): Promise<Client> {
  const client = await connectModernStdio(
    {
      command: process.execPath,
      args: [BIN, "bridge"],
      env: processEnv({ T3_CONNECTOR_WRITE_CONFIG: gate().config.path }),
    },
    options,
  );
  clients.push(client);
  return client;
}

async function pageCall(path: string, body: Body): Promise<{ status: number; body: Body }> {
  const answer = await postJson(gate().gate.port, path, body, { origin: pageOrigin(gate().gate) });
  return { status: answer.status, body: answer.body as Body };
}

describe("a 2026-07-28 client on the write bridge", () => {
  it("discovers the bridge and gets the approval link in the result when it declared no elicitation", async () => {
    const client = await bridgeClient();
    expect(client.getNegotiatedProtocolVersion()).toBe(MODERN_REVISION);
    const discovered = await client.discover();
    expect(discovered._meta?.["io.modelcontextprotocol/serverInfo"]).toMatchObject({
      name: "t3-connector-write",
    });
    expect(discovered.instructions).toMatch(/call t3_pedir_aprovacao first/);
    const answer = await client.callTool({ name: "t3_pedir_aprovacao", arguments: { purpose: "look" } });
    expect(answer.isError).toBeFalsy();
    const result = answer.structuredContent as Body;
    expect(result).toMatchObject({ authorized: false, decision: "pending" });
    expect(result.approvalUrl).toBe(`${pageOrigin(gate().gate)}/?request=${result.requestId}`);
    expect(result.elicitation).toBeUndefined();
  }, 60_000);

  it("asks to open the link through an input round, then waits on the same request until the person denies", async () => {
    let askedFor: (request: { url: string; message: string }) => void = () => {};
    const asked = new Promise<{ url: string; message: string }>((resolve) => {
      askedFor = resolve;
    });
    const client = await bridgeClient({
      urlElicitation: (request) => {
        askedFor(request);
        return "accept";
      },
    });
    const events = await openEventStream(gate().gate.port);
    try {
      const waiting = client.callTool(
        {
          name: "t3_pedir_aprovacao",
          arguments: { purpose: "pin a thread", actions: ["thread.pin"], waitSeconds: 60 },
        },
        { timeout: 120_000 },
      );
      const { requestId } = (await events.next("request")).data as { requestId: string };
      // The person's answer to the link comes back in the retried call, which then waits.
      const view = await pageCall("/api/requests/view", { requestId });
      expect(view.body).toMatchObject({ purpose: "pin a thread", client: { name: "t3-connector-2026-e2e" } });
      expect((await asked).url).toBe(`${pageOrigin(gate().gate)}/?request=${requestId}`);
      expect((await pageCall("/api/requests/deny", { requestId })).status).toBe(200);
      const answer = await waiting;
      expect(answer.isError).toBeFalsy();
      expect(answer.structuredContent).toMatchObject({
        authorized: false,
        decision: "denied",
        requestId,
        elicitation: "accept",
      });
      // One request only: the retried call waited on it instead of asking anew.
      expect(
        ((await pageCall("/api/state", {})).body.pendingRequests as Body[]).map((r) => r.requestId),
      ).not.toContain(requestId);
    } finally {
      events.close();
    }
  }, 120_000);

  it("returns the pending link with the person's decline, without waiting", async () => {
    const client = await bridgeClient({ urlElicitation: () => "decline" });
    const answer = await client.callTool({
      name: "t3_pedir_aprovacao",
      arguments: { purpose: "maybe later", waitSeconds: 60 },
    });
    expect(answer.structuredContent).toMatchObject({
      authorized: false,
      decision: "pending",
      elicitation: "decline",
    });
    const result = answer.structuredContent as Body;
    expect(result.approvalUrl).toBe(`${pageOrigin(gate().gate)}/?request=${result.requestId}`);
    expect((result.environments as unknown[]).length).toBeGreaterThan(0);
  }, 60_000);

  it("answers a write or a leased read without an open lease with the same typed tool error as in 2025", async () => {
    const client = await bridgeClient();
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).toEqual(
      expect.arrayContaining(["t3_pedir_aprovacao", "t3_escrever_thread_pin", "t3_threads"]),
    );
    const write = await client.callTool({
      name: "t3_escrever_thread_pin",
      arguments: {
        leaseId: "lease-none",
        environment: "alpha",
        operationId: "op-2026",
        input: { threadId: "t" },
      },
    });
    expect(write.isError).toBe(true);
    expect(write._meta?.["t3-connector/error"]).toMatchObject({ code: "lease_closed" });
    const read = await client.callTool({
      name: "t3_threads",
      arguments: { leaseId: "lease-none", environment: "alpha" },
    });
    expect(read.isError).toBe(true);
    expect(read._meta?.["t3-connector/error"]).toMatchObject({ code: "lease_closed" });
  }, 60_000);
});
