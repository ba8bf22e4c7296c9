import { isConnectorError } from "@t3-connector/core";
import { describe, expect, it } from "vitest";
import { createRelayClient } from "../../src/relay-client.js";
import { type BridgeSession, textOf, useBridgeOverFakeGate } from "../support/bridge-client.js";
import type { FakeGate } from "../support/fake-gate.js";

let gate: FakeGate;
let bridge: BridgeSession;
useBridgeOverFakeGate((g, b) => {
  gate = g;
  bridge = b;
});

const pin = {
  leaseId: "lease-1",
  environment: "alpha",
  operationId: "op-1",
  input: { threadId: "thread-1" },
};

/** What the gate answers a completed write, every field the relay contract requires. */
const COMPLETED = {
  state: "completed",
  operationId: "op-1",
  environmentId: "env-alpha",
  action: "thread.pin",
  replayed: false,
  receipt: { sequence: 7 },
  derivedIds: { commandId: "cmd-1" },
};

const without = (field: keyof typeof COMPLETED) =>
  Object.fromEntries(Object.entries(COMPLETED).filter(([key]) => key !== field));

describe("the bridge parses each relay answer with its op's result schema", () => {
  it("passes a complete dispatch answer on, dropping a field a newer gate added", async () => {
    gate.answer = () => ({ status: 200, body: { ...COMPLETED, addedByANewerGate: true } });
    const result = await bridge.call("t3_escrever_thread_pin", pin);
    expect(result.isError).not.toBe(true);
    expect(result.structuredContent).toEqual({ ...COMPLETED, leaseId: "lease-1", receipt: { sequence: 7 } });
  });

  it("refuses a dispatch answer missing derivedIds as relay_answer_invalid, naming the field", async () => {
    gate.answer = () => ({ status: 200, body: without("derivedIds") });
    const result = await bridge.call("t3_escrever_thread_pin", pin);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^relay_answer_invalid: .*dispatch.*derivedIds/);
  });

  it("refuses a field of another type (replayed as a string) the same way", async () => {
    gate.answer = () => ({ status: 200, body: { ...COMPLETED, replayed: "no" } });
    const result = await bridge.call("t3_escrever_thread_pin", pin);
    expect(textOf(result)).toMatch(/^relay_answer_invalid: .*replayed/);
  });

  it("throws a typed ConnectorError from the relay client itself, with the op in its details", async () => {
    const relay = createRelayClient({ port: gate.port, stateDir: gate.stateDir, timeoutMs: 10_000 });
    gate.answer = () => ({
      status: 200,
      body: {
        key: "k",
        operationId: "op-1",
        environmentId: "env-alpha",
        action: "thread.pin",
        state: "completed",
      },
    });
    const refused = await relay
      .call({ op: "reconcile", key: "a".repeat(64) })
      .catch((error: unknown) => error);
    expect(isConnectorError(refused, "relay_answer_invalid")).toBe(true);
    expect(isConnectorError(refused) && refused.details).toMatchObject({
      op: "reconcile",
      reason: "answer_invalid",
    });
  });
});
