/**
 * `t3_pedir_aprovacao` with a wait keeps a client that gives up after a short silence waiting:
 * the bridge reports progress on its injected interval, each report resets the client's timeout
 * (the SDK's `resetTimeoutOnProgress`), and the person's deny on the real gate's page API ends the
 * call. Real parts throughout: the in-process gate over the simulator, the relay over a socket,
 * the MCP SDK client; only the interval is short (100 ms instead of 5 s) and the clock stands still.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openEventStream } from "../../../write-gate/test/approval/support/event-stream-client.js";
import { type GateHarness, startGateHarness } from "../../../write-gate/test/support/gate-harness.js";
import { postJson } from "../../../write-gate/test/support/http.js";
import { type BridgeSession, connectBridge, textOf } from "../support/bridge-client.js";

const PROGRESS_MS = 100;
/** The client's patience: ten reports' worth, so scheduling delays on a loaded machine cannot fail it. */
const CLIENT_TIMEOUT_MS = 10 * PROGRESS_MS;
/** The person denies only after the client's timeout has passed more than once over. */
const REPORTS_BEFORE_DENY = 15;

let gate: GateHarness;
let bridge: BridgeSession;

beforeAll(async () => {
  gate = await startGateHarness();
  bridge = await connectBridge(
    { port: gate.gate.port, stateDir: gate.world.stateDir },
    { approvalProgressMs: PROGRESS_MS, now: () => Date.parse("2026-12-04T12:00:00.000Z") },
  );
});
afterAll(async () => {
  await bridge?.close();
  await gate?.close();
});

describe("t3_pedir_aprovacao while the person decides", () => {
  it("keeps a client with a short timeout waiting through progress reports, then answers the deny", async () => {
    const events = await openEventStream(gate.gate.port);
    try {
      const progress: string[] = [];
      let requestId: string | undefined;
      let denied: Promise<unknown> | undefined;
      const waiting = bridge.client.callTool(
        {
          name: "t3_pedir_aprovacao",
          arguments: { purpose: "a long think", actions: ["thread.pin"], waitSeconds: 60 },
        },
        undefined,
        {
          timeout: CLIENT_TIMEOUT_MS,
          resetTimeoutOnProgress: true,
          onprogress: (report) => {
            progress.push(report.message ?? "");
            if (progress.length === REPORTS_BEFORE_DENY && requestId !== undefined) {
              denied = postJson(
                gate.gate.port,
                "/api/requests/deny",
                { requestId },
                { origin: `http://localhost:${gate.gate.port}` },
              );
            }
          },
        },
      ) as Promise<CallToolResult>;
      requestId = ((await events.next("request")).data as { requestId: string }).requestId;
      const answer = await waiting;
      expect(answer.isError, textOf(answer)).toBeFalsy();
      expect(answer.structuredContent).toMatchObject({ decision: "denied", requestId });
      expect(await denied).toMatchObject({ status: 200, body: { denied: true } });
      expect(progress.length).toBeGreaterThanOrEqual(REPORTS_BEFORE_DENY);
      // The clock is injected and stands still, so every report counts down from the full wait.
      for (const message of progress) {
        expect(message).toBe("waiting for the person to approve or deny on the gate's page (60 s left)");
      }
    } finally {
      events.close();
    }
  });
});
