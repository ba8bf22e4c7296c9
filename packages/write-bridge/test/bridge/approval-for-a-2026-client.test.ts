/**
 * `t3_pedir_aprovacao` for a 2026-07-28 client (ADR 0046), in process: the SDK's v2 client pinned
 * to that revision, the bridge served the way the CLI serves it (`serveStdio`, here over the SDK's
 * in-memory pair instead of pipes), the real in-process gate over the simulator. The link is asked
 * for through an `input_required` round; the retried call then waits on the same request and
 * reports progress, related to the call, the way a 2026 client receives it (no push-style
 * `elicitation/create`, which that revision does not have). The bridge's reports are fired by hand.
 */
import { Client, InMemoryTransport } from "@modelcontextprotocol/client";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { openEventStream } from "@t3-connector/test-support/event-stream-client";
import { type GateHarness, startGateHarness } from "@t3-connector/test-support/gate-harness";
import { postJson } from "@t3-connector/test-support/gate-http";
import { ManualTimers } from "@t3-connector/test-support/t3-fake-servers";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createBridgeServer } from "../../src/index.js";
import { createRelayClient } from "../../src/relay-client.js";
import { APPROVAL_PROGRESS_MS } from "../../src/tools/approval-tool.js";

let gate: GateHarness;
const timers = new ManualTimers();
const closers: Array<() => Promise<void>> = [];

beforeAll(async () => {
  gate = await startGateHarness();
});
afterAll(async () => {
  for (const close of closers.reverse()) await close();
  await gate?.close();
});

async function modernSession(answer: "accept" | "decline"): Promise<{ client: Client; asked: string[] }> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const relay = createRelayClient({ port: gate.gate.port, stateDir: gate.world.stateDir, timeoutMs: 10_000 });
  const served = serveStdio(
    () =>
      createBridgeServer({
        relay,
        bridgeId: "bridge-2026",
        timers,
        now: () => Date.parse("2026-12-04T12:00:00.000Z"),
        log: () => undefined,
      }),
    { transport: serverSide },
  );
  const client = new Client(
    { name: "modern-test", version: "1.0.0" },
    { versionNegotiation: { mode: { pin: "2026-07-28" } }, capabilities: { elicitation: { url: {} } } },
  );
  const asked: string[] = [];
  client.setRequestHandler("elicitation/create", async (request) => {
    asked.push((request.params as { url?: string }).url ?? "");
    return { action: answer };
  });
  await client.connect(clientSide);
  closers.push(async () => {
    await client.close();
    await served.close();
  });
  return { client, asked };
}

describe("t3_pedir_aprovacao for a 2026-07-28 client", () => {
  it("asks for the link in an input round, then waits with progress until the person denies", async () => {
    const { client, asked } = await modernSession("accept");
    expect(client.getProtocolEra()).toBe("modern");
    const events = await openEventStream(gate.gate.port);
    try {
      const progress: string[] = [];
      const waiting = client.callTool(
        {
          name: "t3_pedir_aprovacao",
          arguments: { purpose: "think", actions: ["thread.pin"], waitSeconds: 60 },
        },
        // The client reports its own input rounds as progress too; the bridge's reports are ours.
        {
          onprogress: (report) => {
            if (report.message?.startsWith("waiting")) progress.push(report.message);
          },
        },
      );
      const requestId = ((await events.next("request")).data as { requestId: string }).requestId;
      // The retried call is waiting once its first report is armed.
      await vi.waitFor(() => expect(timers.count(APPROVAL_PROGRESS_MS)).toBe(1), { interval: 5 });
      expect(asked).toEqual([`http://localhost:${gate.gate.port}/?request=${requestId}`]);
      expect(timers.fire(APPROVAL_PROGRESS_MS)).toBe(1);
      await vi.waitFor(() => expect(progress).toHaveLength(1), { interval: 5 });
      expect(progress[0]).toBe("waiting for the person to approve or deny on the gate's page (60 s left)");

      const denied = await postJson(
        gate.gate.port,
        "/api/requests/deny",
        { requestId },
        { origin: `http://localhost:${gate.gate.port}` },
      );
      expect(denied).toMatchObject({ status: 200, body: { denied: true } });
      const answer = await waiting;
      expect(answer.isError).toBeFalsy();
      expect(answer.structuredContent).toMatchObject({
        authorized: false,
        decision: "denied",
        requestId,
        elicitation: "accept",
      });
      expect(timers.count(APPROVAL_PROGRESS_MS)).toBe(0);
    } finally {
      events.close();
    }
  });

  it("refuses a requestState it did not seal with the SDK's -32602", async () => {
    const { client } = await modernSession("accept");
    await expect(
      client.callTool({
        name: "t3_pedir_aprovacao",
        arguments: { purpose: "forged" },
        requestState: "forged-state",
        inputResponses: { approval: { action: "accept" } },
      } as Parameters<Client["callTool"]>[0]),
    ).rejects.toThrow(/requestState/);
  });
});
