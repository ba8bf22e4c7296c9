/**
 * Current T3's newer states and commands, end to end: bridge → real gate → simulator (issue 23's
 * "done when"). A failed workspace preparation retried through `t3_escrever_prepared_run_retry`
 * goes back to `preparing`; a pull-request watch set through `t3_escrever_thread_pull_request_watch`
 * shows on `t3_thread`; a pending secret request makes `t3_thread` answer a state needing a person
 * with a nextAction to answer it in T3, and lists the thread in `t3_atencao`; the three
 * server-only sync commands are offered by no tool. Confirmation is always a read of the thread.
 */
import { SERVER_ONLY_COMMAND_TYPES } from "@t3-connector/t3-sim";
import type { GateHarness } from "@t3-connector/test-support/gate-harness";
import { LEASED_PROJECT } from "@t3-connector/test-support/sim-world";
import { describe, expect, it } from "vitest";
import { type Body, type BridgeSession, structured } from "../support/bridge-client.js";
import { useBridgeOverRealGate } from "../support/bridge-over-real-gate.js";

let h: GateHarness;
let bridge: BridgeSession;

useBridgeOverRealGate((harness, session) => {
  h = harness;
  bridge = session;
});

async function readThread(leaseId: string, threadId: string): Promise<Body> {
  const result = await bridge.call("t3_thread", { leaseId, environment: "alpha", threadId });
  expect(result.isError, JSON.stringify(result)).toBeFalsy();
  return structured(result);
}

describe("current T3's newer commands and states through the bridge", () => {
  it("retries a failed workspace preparation: the run goes back to preparing", async () => {
    const leaseId = await h.grantLease();
    const alpha = h.world.env("alpha");
    const threadId = alpha.model.addThread({ projectId: LEASED_PROJECT, state: "preparation_failed" });
    const runId = String((await readThread(leaseId, threadId)).runId);
    expect(await readThread(leaseId, threadId)).toMatchObject({ state: "failed", statusRun: "failed" });
    const result = await bridge.call("t3_escrever_prepared_run_retry", {
      leaseId,
      environment: "alpha",
      operationId: "bridge-retry-1",
      input: { threadId, runId },
    });
    expect(result.isError).toBeFalsy();
    expect(structured(result)).toMatchObject({ state: "completed", action: "prepared-run.retry" });
    expect(await readThread(leaseId, threadId)).toMatchObject({
      state: "running",
      statusRun: "preparing",
      runId,
    });
  });

  it("sets a pull-request watch that t3_thread then shows", async () => {
    const leaseId = await h.grantLease();
    const alpha = h.world.env("alpha");
    const threadId = alpha.model.addThread({ projectId: LEASED_PROJECT, state: "completed" });
    const result = await bridge.call("t3_escrever_thread_pull_request_watch", {
      leaseId,
      environment: "alpha",
      operationId: "bridge-watch-1",
      input: {
        threadId,
        host: "github.com",
        repository: "acme/widgets",
        number: 7,
        watching: true,
        link: { url: "https://github.com/acme/widgets/pull/7", source: "manual" },
      },
    });
    expect(result.isError).toBeFalsy();
    expect(structured(result)).toMatchObject({ state: "completed", action: "thread.pull-request.watch" });
    const thread = await readThread(leaseId, threadId);
    expect(thread.pullRequests).toEqual([
      expect.objectContaining({
        repository: "acme/widgets",
        number: 7,
        watch: { startedAt: expect.any(String), paused: false },
      }),
    ]);
  });

  it("answers a pending secret request as needing a person, answered in T3 itself, and lists it in t3_atencao", async () => {
    const leaseId = await h.grantLease();
    const alpha = h.world.env("alpha");
    const threadId = alpha.model.addThread({ projectId: LEASED_PROJECT, state: "completed" });
    const requestId = alpha.model.requestSecret(threadId, { name: "GITHUB_TOKEN" });
    expect(await readThread(leaseId, threadId)).toMatchObject({
      state: "needs_intervention",
      stateSource: "secret_request",
      identifier: { secretRequestId: requestId },
      nextAction: {
        type: "answer_in_t3",
        message: "Answer it in T3 itself; the value never travels through the connector.",
      },
    });
    const attention = structured(await bridge.call("t3_atencao", { leaseId, environment: "alpha" }));
    expect(JSON.stringify(attention)).toContain(threadId);
  });

  it("offers no tool for the three server-only sync commands", async () => {
    const { tools } = await bridge.client.listTools();
    const names = tools.map((tool) => tool.name);
    expect(names).toContain("t3_escrever_prepared_run_retry");
    expect(names).toContain("t3_escrever_thread_pull_request_watch");
    for (const type of SERVER_ONLY_COMMAND_TYPES) {
      expect(names).not.toContain(`t3_escrever_${type.replace(/[.-]/g, "_")}`);
      expect(JSON.stringify(tools)).not.toContain(type);
    }
  });
});
