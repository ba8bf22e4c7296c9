/**
 * `t3_escrever_thread_conditional_send` through the bridge: listed with its literal name, strict
 * before anything is relayed (fake gate, which records every request), and against the real gate
 * over the simulator: pending while the run is active, sent once after it ended, never resent.
 */

import { type GateHarness, startGateHarness } from "@t3-connector/test-support/gate-harness";
import { LEASED_PROJECT } from "@t3-connector/test-support/sim-world";
import { toolInputError } from "@t3-connector/test-support/tool-input-error";
import { CONDITIONAL_SEND } from "@t3-connector/write-engine/actions";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Body,
  type BridgeSession,
  connectBridge,
  structured,
  textOf,
} from "../support/bridge-client.js";
import { type FakeGate, startFakeGate } from "../support/fake-gate.js";

const CONDITIONAL_SEND_TOOL_NAME = "t3_escrever_thread_conditional_send";

describe("the conditional send before the gate", () => {
  let gate: FakeGate;
  let bridge: BridgeSession;

  beforeAll(async () => {
    gate = await startFakeGate();
    await gate.writeCapability();
    bridge = await connectBridge(gate);
  });
  afterAll(async () => {
    await bridge?.close();
    await gate?.close();
  });

  const args = (extra: Body = {}, input: Body = {}) => ({
    leaseId: "lease-1",
    environment: "alpha",
    operationId: "cond-1",
    input: { threadId: "thread-1", clientRequestId: "cond-1", afterRunId: "run-1", text: "hi", ...input },
    ...extra,
  });

  async function invalidParams(callArgs: Body): Promise<string> {
    const error = await toolInputError(bridge.client, CONDITIONAL_SEND_TOOL_NAME, callArgs);
    expect(error.code).toBe("invalid_input");
    return error.text;
  }

  it("is listed with the catalogue's literal name, title, hints and a strict envelope", async () => {
    const { tools } = await bridge.client.listTools();
    const tool = tools.find((candidate) => candidate.name === "t3_escrever_thread_conditional_send");
    expect(tool?.title).toBe(CONDITIONAL_SEND.label);
    expect(tool?.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: true,
    });
    expect(tool?.inputSchema.required).toEqual(["leaseId", "environment", "operationId", "input"]);
    expect(tool?.inputSchema.additionalProperties).toBe(false);
    expect(tool?.description).toMatch(/precondition_pending.*t3_aguardar_thread.*same operationId/);
    expect(tool?.description).toMatch(/uncertain.*t3_reconciliar_escrita/);
    const states = (tool?.outputSchema?.properties as Record<string, { enum?: string[] }> | undefined)?.state
      ?.enum;
    expect(states).toEqual([
      "precondition_pending",
      "precondition_failed",
      "failed",
      "uncertain",
      "completed",
    ]);
    expect(gate.requests).toHaveLength(0);
  });

  it("refuses a legacy key, an unknown key and a delivery in the input as invalid_input tool errors, relaying nothing", async () => {
    const { environment: _dropped, ...rest } = args();
    expect(await invalidParams({ ...rest, ambiente: "alpha" })).toContain('"ambiente" is now "environment"');
    await invalidParams(args({ force: true }));
    await invalidParams(args({}, { delivery: "steer_active" }));
    await invalidParams(args({}, { waitMs: 60_000 }));
    expect(gate.requests).toHaveLength(0);
  });

  it("relays a valid call as the conditional_send op with the input as sent", async () => {
    gate.requests.length = 0;
    gate.answer = () => ({
      status: 200,
      body: {
        state: "uncertain",
        operationId: "cond-1",
        environmentId: "env-alpha",
        threadId: "thread-1",
        afterRunId: "run-1",
        replayed: false,
        reason: "reconciliation_required",
        failedStep: "send",
        failedOperationId: "cond-1:send",
        sent: true,
        nextAction: "reconcile failedOperationId",
      },
    });
    const result = await bridge.call(CONDITIONAL_SEND_TOOL_NAME, args());
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(gate.requests.map((request) => request.body)).toEqual([{ op: "conditional_send", ...args() }]);
    expect(structured(result)).toMatchObject({
      state: "uncertain",
      failedStep: "send",
      failedOperationId: "cond-1:send",
      delivery: null,
      detail: null,
    });
  });
});

describe("the conditional send against the real gate relay", () => {
  const THREAD = "9d3a1c7e-52b4-4f0a-8e6d-1b2c3d4e5f60";
  let h: GateHarness;
  let bridge: BridgeSession;

  beforeAll(async () => {
    h = await startGateHarness();
    h.world.env("alpha").model.addThread({ id: THREAD, projectId: LEASED_PROJECT, state: "running" });
    bridge = await connectBridge({ port: h.gate.port, stateDir: h.world.stateDir });
  });
  afterAll(async () => {
    await bridge?.close();
    await h?.close();
  });

  const activeRunId = () =>
    (h.world.env("alpha").model.getThread(THREAD)?.shell as { activeRunId?: string | null } | undefined)
      ?.activeRunId ?? null;

  it("answers precondition_pending while the run is active, sends once after it ended, and never resends", async () => {
    const leaseId = await h.grantLease({ environments: ["alpha"] });
    const alpha = h.world.env("alpha");
    const runId = activeRunId();
    expect(runId).toBeTruthy();
    const args = {
      leaseId,
      environment: "alpha",
      operationId: "bridge-cond-1",
      input: {
        threadId: THREAD,
        clientRequestId: "bridge-cond-1",
        afterRunId: runId,
        text: "Now the changelog.",
      },
    };
    const before = alpha.model.receivedCommands.length;

    const pending = await bridge.call(CONDITIONAL_SEND_TOOL_NAME, args);
    expect(pending.isError, textOf(pending)).toBeFalsy();
    expect(structured(pending)).toMatchObject({
      state: "precondition_pending",
      reason: "run_active",
      operationId: "bridge-cond-1",
      environmentId: alpha.environmentId,
      threadId: THREAD,
      afterRunId: runId,
      delivery: null,
    });
    expect(structured(pending).nextAction).toContain("t3_aguardar_thread");
    expect(alpha.model.receivedCommands.length).toBe(before);

    const interrupted = await bridge.call("t3_escrever_run_interrupt", {
      leaseId,
      environment: "alpha",
      operationId: "bridge-cond-interrupt",
      input: { threadId: THREAD, runId },
    });
    expect(interrupted.isError, textOf(interrupted)).toBeFalsy();
    expect(activeRunId()).toBeNull();
    const afterInterrupt = alpha.model.receivedCommands.length;

    const done = await bridge.call(CONDITIONAL_SEND_TOOL_NAME, args);
    expect(done.isError, textOf(done)).toBeFalsy();
    expect(structured(done)).toMatchObject({
      state: "completed",
      replayed: false,
      sent: true,
      failedStep: null,
      delivery: { observed: true, deliveredAs: "started" },
    });
    const sent = alpha.model.receivedCommands.slice(afterInterrupt);
    expect(sent.map((command) => command.type)).toEqual(["message.dispatch"]);
    expect(sent[0]).toMatchObject({ payload: { threadId: THREAD, text: "Now the changelog." } });

    const again = await bridge.call(CONDITIONAL_SEND_TOOL_NAME, args);
    expect(structured(again)).toMatchObject({ state: "completed", replayed: true });
    expect(alpha.model.receivedCommands.length).toBe(afterInterrupt + 1);
  });
});
