import { ACTIONS, SAMPLE_IDS, SAMPLE_INPUTS } from "@t3-connector/write-engine/actions";

const SAMPLE_OPERATION_ID = SAMPLE_IDS.operationId;

import { describe, expect, it } from "vitest";
import { writeToolRow } from "../../src/tools/write-tool-table.js";
import { type BridgeSession, textOf, useBridgeOverFakeGate } from "../support/bridge-client.js";
import type { FakeGate } from "../support/fake-gate.js";

let gate: FakeGate;
let bridge: BridgeSession;

useBridgeOverFakeGate((started, session) => {
  gate = started;
  bridge = session;
});

describe("write tools", () => {
  it("relay each of the 44 actions as a dispatch of that action, with the client's input unchanged", async () => {
    gate.answer = ({ body }) => ({
      status: 200,
      body: {
        state: "completed",
        operationId: body.operationId,
        environmentId: "env-alpha",
        action: body.action,
        replayed: false,
        receipt: { sequence: gate.requests.length },
        derivedIds: { commandId: `c-${gate.requests.length}` },
      },
    });
    for (const entry of ACTIONS) {
      gate.requests.length = 0;
      const input = SAMPLE_INPUTS[entry.action];
      const toolName = writeToolRow(entry.action).name;
      const result = await bridge.call(toolName, {
        leaseId: "lease-1",
        environment: "alpha",
        operationId: SAMPLE_OPERATION_ID,
        input,
      });
      expect(result.isError, `${toolName}: ${textOf(result)}`).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ action: entry.action, state: "completed" });
      expect(gate.requests.map((request) => request.body)).toEqual([
        {
          op: "dispatch",
          action: entry.action,
          leaseId: "lease-1",
          environment: "alpha",
          operationId: SAMPLE_OPERATION_ID,
          input,
        },
      ]);
    }
  });

  it("do not pass off a malformed gate answer as a result", async () => {
    gate.answer = () => ({ status: 200, body: { state: "completed" } });
    const result = await bridge.call("t3_escrever_thread_pin", {
      leaseId: "lease-1",
      environment: "alpha",
      operationId: "op-x",
      input: { threadId: "thread-1" },
    });
    expect(result.isError).toBe(true);
    // Refused by the relay contract's result schema before the tool's output schema sees it.
    expect(textOf(result)).toMatch(/^relay_answer_invalid: .*operationId/);
  });
});
