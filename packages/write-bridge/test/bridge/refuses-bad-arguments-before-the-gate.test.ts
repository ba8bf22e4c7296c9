import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { toolInputError } from "@t3-connector/test-support/tool-input-error";
import { beforeEach, describe, expect, it } from "vitest";
import { type BridgeSession, textOf, useBridgeOverFakeGate } from "../support/bridge-client.js";
import type { FakeGate } from "../support/fake-gate.js";

let gate: FakeGate;
let bridge: BridgeSession;

useBridgeOverFakeGate((started, session) => {
  gate = started;
  bridge = session;
});
beforeEach(() => {
  gate.requests.length = 0;
  gate.answer = () => ({ status: 200, body: {} });
});

const pin = (extra: Record<string, unknown> = {}) => ({
  leaseId: "lease-1",
  environment: "alpha",
  operationId: "op-1",
  input: { threadId: "thread-1" },
  ...extra,
});

/** The bridge's answer to a bad argument: an invalid_input tool error; returns its text. */
async function invalidParams(name: string, args: unknown): Promise<string> {
  const error = await toolInputError(bridge.client, name, args);
  expect(error.code).toBe("invalid_input");
  return error.text;
}

describe("strict inputs", () => {
  it("answers an unknown envelope key as an invalid_input tool error and relays nothing", async () => {
    await invalidParams("t3_escrever_thread_pin", pin({ force: true }));
    expect(gate.requests).toHaveLength(0);
  });

  it("refuses the legacy `ambiente` key, naming its replacement, and relays nothing", async () => {
    const { environment: _dropped, ...rest } = pin();
    const message = await invalidParams("t3_escrever_thread_pin", { ...rest, ambiente: "alpha" });
    expect(message).toContain('"ambiente" is now "environment"');
    expect(gate.requests).toHaveLength(0);
  });

  it("refuses a write without an environment: there is no default", async () => {
    const { environment: _dropped, ...rest } = pin();
    await invalidParams("t3_escrever_thread_pin", rest);
    await invalidParams("t3_escrever_thread_pin", pin({ environment: "  " }));
    expect(gate.requests).toHaveLength(0);
  });

  it("refuses an unknown key inside the action input and a malformed action input", async () => {
    await invalidParams("t3_escrever_thread_pin", pin({ input: { threadId: "thread-1", extra: 1 } }));
    await invalidParams("t3_escrever_thread_send", pin({ input: { threadId: "thread-1", text: "hi" } }));
    expect(gate.requests).toHaveLength(0);
  });

  it.each(["__proto__", "constructor", "prototype"])(
    "refuses a %s key inside a keyed record (answers) like any unknown key, and relays nothing",
    async (key) => {
      // A record accepts any key, and copying one named __proto__ would drop it silently.
      const args = JSON.parse(
        `{"leaseId":"lease-1","environment":"alpha","operationId":"op-1",` +
          `"input":{"threadId":"thread-1","requestId":"req-1","answers":{"q1":"yes","${key}":{"q2":"no"}}}}`,
      );
      const message = await invalidParams("t3_escrever_runtime_request_answer", args);
      expect(message).toContain(`"input.answers.${key}" is not a parameter`);
      expect(gate.requests).toHaveLength(0);
    },
  );

  it("refuses a __proto__ key at the top of the arguments", async () => {
    const args = JSON.parse(
      '{"leaseId":"lease-1","environment":"alpha","operationId":"op-1","input":{"threadId":"thread-1"},"__proto__":{"force":true}}',
    );
    const message = await invalidParams("t3_escrever_thread_pin", args);
    expect(message).toContain('"__proto__" is not a parameter');
    expect(gate.requests).toHaveLength(0);
  });

  it("answers arguments: null as a tool error and relays nothing", async () => {
    const text = await invalidParams("t3_escrever_thread_pin", null);
    expect(text).toMatch(
      /^invalid_input: t3_escrever_thread_pin takes an object of named arguments, not null\. /,
    );
    expect(gate.requests).toHaveLength(0);
  });

  it("keeps an unknown tool name a JSON-RPC -32602 protocol error", async () => {
    const error = await bridge.call("t3_escrever_nothing", {}).then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(ErrorCode.InvalidParams);
    expect(gate.requests).toHaveLength(0);
  });

  it("refuses unknown keys and out-of-range waits or purposes on approval, leased reads and reconciliation", async () => {
    await invalidParams("t3_pedir_aprovacao", { ambientes: ["alpha"] });
    await invalidParams("t3_pedir_aprovacao", { waitSeconds: 301 });
    await invalidParams("t3_pedir_aprovacao", { purpose: "x".repeat(281) });
    await invalidParams("t3_threads", { leaseId: "lease-1", environment: "alpha", limite: 5 });
    await invalidParams("t3_thread", { leaseId: "lease-1", environment: "alpha" });
    await invalidParams("t3_reconciliar_escrita", { leaseId: "lease-1", environment: "alpha", key: "k" });
    await invalidParams("t3_escrever_thread_conditional_send", pin());
    expect(gate.requests).toHaveLength(0);
  });

  it("refuses a proposal alongside requestId (waiting creates nothing) and relays nothing", async () => {
    const result = await bridge.call("t3_pedir_aprovacao", {
      requestId: "r".repeat(43),
      actions: ["thread.pin"],
    });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(
      /^invalid_input: requestId waits on an existing request; actions can only be given/,
    );
    expect(gate.requests).toHaveLength(0);
  });

  it("relays a valid write once, as the dispatch op, with the capability and Host localhost:<port>", async () => {
    gate.answer = () => ({
      status: 200,
      body: {
        state: "completed",
        operationId: "op-1",
        environmentId: "env-alpha",
        action: "thread.pin",
        replayed: false,
        receipt: { sequence: 7 },
        derivedIds: { commandId: "c-1" },
      },
    });
    const result = await bridge.call("t3_escrever_thread_pin", pin({ environment: " alpha " }));
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ state: "completed", receipt: { sequence: 7 } });
    expect(gate.requests).toHaveLength(1);
    const [sent] = gate.requests;
    expect(sent?.body).toEqual({
      op: "dispatch",
      action: "thread.pin",
      leaseId: "lease-1",
      environment: "alpha",
      operationId: "op-1",
      input: { threadId: "thread-1" },
    });
    expect(sent?.headers.host).toBe(`localhost:${gate.port}`);
    expect(sent?.headers["x-t3-private-relay"]).toBe(gate.capability);
    expect(textOf(result)).toContain('"state":"completed"');
  });
});
