/**
 * `t3_pedir_aprovacao` with a wait keeps a client that gives up after a short silence waiting:
 * each progress report the bridge sends resets the client's timeout (the SDK's
 * `resetTimeoutOnProgress`), and the person's deny on the real gate's page API ends the call.
 * Real parts throughout: the in-process gate over the simulator, the relay over a socket, the MCP
 * SDK client; the bridge's reports are fired by hand and the clock stands still.
 *
 * The one part on real time is the client's own request timeout, a `setTimeout` inside the SDK
 * that no one can inject: the call must outlast it for the test to prove anything, so the test
 * takes about one client timeout (CLIENT_TIMEOUT_MS) and no more.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { openEventStream } from "@t3-connector/test-support/event-stream-client";
import { type GateHarness, startGateHarness } from "@t3-connector/test-support/gate-harness";
import { postJson } from "@t3-connector/test-support/gate-http";
import { ManualTimers } from "@t3-connector/test-support/t3-fake-servers";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { APPROVAL_PROGRESS_MS } from "../../src/tools/approval-tool.js";
import { type BridgeSession, connectBridge, textOf } from "../support/bridge-client.js";

/**
 * The client's patience. A report follows the one before by half of it, and Node fires timers in
 * order of their due time, so a late event loop delays the report and the timeout alike. What no
 * timer order protects is the call's first trip (client → bridge → gate, until the bridge arms its
 * first report) and each report's trip to the client: a loaded two-core machine took more than
 * 300 ms for one, so the client's patience is a full second.
 */
const CLIENT_TIMEOUT_MS = 1_000;

/**
 * Resolves once `ms` of real time have passed, on the timer list the SDK's own timeout uses. Node
 * fires timers of one length in the order they were armed: a timer of CLIENT_TIMEOUT_MS armed
 * after the call's timeout was last (re)armed fires after that timeout would have, so a call
 * still pending then had its timeout reset in between.
 */
function realTimePassed(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

let gate: GateHarness;
let bridge: BridgeSession;
const timers = new ManualTimers();

beforeAll(async () => {
  gate = await startGateHarness();
  bridge = await connectBridge(
    { port: gate.gate.port, stateDir: gate.world.stateDir },
    { timers, now: () => Date.parse("2026-12-04T12:00:00.000Z") },
  );
});
afterAll(async () => {
  await bridge?.close();
  await gate?.close();
});

describe("t3_pedir_aprovacao while the person decides", () => {
  it("keeps a client with a short timeout waiting, each progress report resetting it, then answers the deny", async () => {
    const events = await openEventStream(gate.gate.port);
    try {
      const progress: string[] = [];
      const onReport: Array<() => void> = [];
      let settled = false;
      const waiting = bridge.client.callTool(
        {
          name: "t3_pedir_aprovacao",
          arguments: { purpose: "a long think", actions: ["thread.pin"], waitSeconds: 60 },
        },
        undefined,
        {
          timeout: CLIENT_TIMEOUT_MS,
          resetTimeoutOnProgress: true,
          // The SDK resets the call's timeout before it hands the report on.
          onprogress: (report) => {
            progress.push(report.message ?? "");
            onReport.shift()?.();
          },
        },
      ) as Promise<CallToolResult>;
      const ended = waiting.finally(() => {
        settled = true;
      });
      ended.catch(() => undefined);

      /** Fires the bridge's armed report; resolves once the client has it and has reset its timeout. */
      const report = () => {
        const received = new Promise<void>((resolve) => onReport.push(resolve));
        expect(timers.fire(APPROVAL_PROGRESS_MS)).toBe(1);
        return received;
      };
      /** Fails unless the call is still pending once `ms` have passed from now. */
      const stillPendingAfter = (ms: number) =>
        realTimePassed(ms).then(() => expect(settled, "the client gave up waiting").toBe(false));

      // The call's timeout was armed when it was sent, before the bridge armed its first report.
      await vi.waitFor(() => expect(timers.count(APPROVAL_PROGRESS_MS)).toBe(1), { interval: 5 });
      const pastFirstTimeout = stillPendingAfter(CLIENT_TIMEOUT_MS);
      await report();
      const pastSecondTimeout = stillPendingAfter(CLIENT_TIMEOUT_MS);
      await realTimePassed(CLIENT_TIMEOUT_MS / 2);
      await report();
      // Each report was the only thing between the call and its client's timeout.
      await Promise.all([pastFirstTimeout, pastSecondTimeout]);

      // Until the deny's answer arrives, a report every half client timeout, as the bridge's own
      // interval would send: the answer's round trip is never raced against the client's timeout.
      const reporting = (async () => {
        while (!settled) {
          await Promise.race([realTimePassed(CLIENT_TIMEOUT_MS / 2), ended.catch(() => undefined)]);
          // Armed means the bridge still waits, so the report reaches the client before the answer.
          if (!settled && timers.count(APPROVAL_PROGRESS_MS) === 1) await report();
        }
      })();
      const requestId = ((await events.next("request")).data as { requestId: string }).requestId;
      const denied = await postJson(
        gate.gate.port,
        "/api/requests/deny",
        { requestId },
        { origin: `http://localhost:${gate.gate.port}` },
      );
      expect(denied).toMatchObject({ status: 200, body: { denied: true } });
      const answer = await waiting;
      await reporting;
      expect(answer.isError, textOf(answer)).toBeFalsy();
      expect(answer.structuredContent).toMatchObject({ decision: "denied", requestId });
      expect(progress.length).toBeGreaterThanOrEqual(2);
      // The clock is injected and stands still, so every report counts down from the full wait.
      for (const message of progress) {
        expect(message).toBe("waiting for the person to approve or deny on the gate's page (60 s left)");
      }
      // The answer ended the reports: none is armed any more.
      expect(timers.count(APPROVAL_PROGRESS_MS)).toBe(0);
    } finally {
      events.close();
    }
  });
});
