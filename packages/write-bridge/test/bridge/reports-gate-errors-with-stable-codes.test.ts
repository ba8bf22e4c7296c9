import { symlink, unlink } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type BridgeSession, connectBridge, textOf } from "../support/bridge-client.js";
import { type FakeGate, startFakeGate } from "../support/fake-gate.js";

let gate: FakeGate;
let bridge: BridgeSession;

beforeAll(async () => {
  gate = await startFakeGate();
  bridge = await connectBridge(gate);
});
afterAll(async () => {
  await bridge?.close();
  await gate?.close();
});
beforeEach(async () => {
  await gate.writeCapability();
  gate.requests.length = 0;
  gate.answer = () => ({ status: 200, body: {} });
});

const pin = {
  leaseId: "lease-1",
  environment: "alpha",
  operationId: "op-1",
  input: { threadId: "thread-1" },
};
const capabilityPath = () => join(gate.stateDir, "relay-capability");

async function errorText(name = "t3_escrever_thread_pin", args: Record<string, unknown> = pin) {
  const result = await bridge.call(name, args);
  expect(result.isError).toBe(true);
  return textOf(result);
}

describe("gate_unavailable", () => {
  it("when no gate runs (no capability file)", async () => {
    await unlink(capabilityPath());
    const text = await errorText();
    expect(text).toMatch(/^gate_unavailable: /);
    // The next step is said once, not once by the message and again as a hint.
    expect(text.split("t3-connector-write gate").length).toBe(2);
    expect(await errorText("t3_pedir_aprovacao", {})).toMatch(/^gate_unavailable: /);
    expect(gate.requests).toHaveLength(0);
  });

  it("when the capability file can be read by the group or others, or is not 0600", async () => {
    for (const mode of [0o644, 0o640, 0o604, 0o400]) {
      await gate.writeCapability(mode);
      expect(await errorText()).toMatch(/^gate_unavailable: .*mode/);
    }
    expect(gate.requests).toHaveLength(0);
  });

  it("when the capability file is a symlink, even to a private file", async () => {
    const real = join(gate.stateDir, "elsewhere");
    await gate.writeCapability();
    const { rename } = await import("node:fs/promises");
    await rename(capabilityPath(), real);
    await symlink(real, capabilityPath());
    expect(await errorText()).toMatch(/^gate_unavailable: .*symlink/);
    expect(gate.requests).toHaveLength(0);
  });

  it("when the capability file is there but nothing listens on the port", async () => {
    const orphan = await connectBridge({ port: 1, stateDir: gate.stateDir });
    try {
      const result = await orphan.call("t3_escrever_thread_pin", pin);
      expect(textOf(result)).toMatch(/^gate_unavailable: no gate answers on port 1/);
    } finally {
      await orphan.close();
    }
  });

  it("re-reads the capability on every call: a restarted gate's new capability is used", async () => {
    // `{}` is not an approval answer (the relay contract requires `active`): the bridge says so
    // instead of inventing a link.
    expect(await errorText("t3_pedir_aprovacao", {})).toMatch(/^relay_answer_invalid: /);
    const first = gate.requests[0]?.headers["x-t3-private-relay"];
    await gate.writeCapability();
    await errorText("t3_pedir_aprovacao", {});
    const second = gate.requests[1]?.headers["x-t3-private-relay"];
    expect(first).not.toBe(second);
    expect(second).toBe(gate.capability);
  });

  it("when the gate refuses the capability (channel_unverified)", async () => {
    gate.answer = () => ({ status: 401, body: { error: "channel_unverified" } });
    expect(await errorText()).toMatch(/^gate_unavailable: /);
  });
});

describe("refusals keep the gate's code first, with the next step", () => {
  const refuse = (body: unknown, status = 403) => {
    gate.answer = () => ({ status, body });
  };

  it("reconciliation_required says to repeat the same operationId or reconcile", async () => {
    refuse({
      error: "reconciliation_required",
      message: "the outcome is unknown",
      details: { state: "uncertain" },
    });
    const text = await errorText();
    expect(text).toMatch(/^reconciliation_required: the outcome is unknown/);
    expect(text).toContain("same operationId");
    expect(text).toContain("t3_reconciliar_escrita");
  });

  it("lease_closed points at t3_pedir_aprovacao", async () => {
    refuse({ error: "lease_closed", message: "no open lease has this id" });
    expect(await errorText()).toMatch(/^lease_closed: .*t3_pedir_aprovacao/);
  });

  it("environment_unknown lists the configured aliases", async () => {
    refuse({
      error: "environment_unknown",
      message: "unknown environment nowhere",
      details: { aliases: ["alpha", "beta"] },
    });
    expect(await errorText()).toMatch(
      /^environment_unknown: unknown environment nowhere \(configured aliases: alpha, beta\)/,
    );
  });

  it("passes each stable code through (the old gate's Portuguese ones too, no longer renamed) and hides unstable ones", async () => {
    const cases: Array<[string, string]> = [
      ["environment_required", "environment_required"],
      ["environment_not_in_lease", "environment_not_in_lease"],
      ["environment_unavailable", "environment_unavailable"],
      ["scope_denied", "scope_denied"],
      ["thread_not_found", "thread_not_found"],
      ["operation_conflict", "operation_conflict"],
      ["too_many_requests", "too_many_requests"],
      ["request_denied", "request_denied"],
      ["proposal_invalid", "proposal_invalid"],
      ["ambiente_fora_da_lease", "ambiente_fora_da_lease"],
      ["Weird-Code", "gate_rejected"],
    ];
    for (const [given, expected] of cases) {
      refuse({ error: given, message: "refused" });
      expect(await errorText()).toMatch(new RegExp(`^${expected}: `));
    }
  });

  it("never doubles the code when the gate gives no message", async () => {
    refuse({ error: "scope_denied" });
    const text = await errorText();
    expect(text).toMatch(/^scope_denied: the gate refused the request/);
    expect(text.split("scope_denied").length).toBe(2);
  });

  it("T3's own refusal carries T3's code", async () => {
    refuse({
      error: "t3_refused",
      message: "T3 refused the command",
      t3: { tag: "OrchestrationCommandInvariantError", code: "thread_busy" },
    });
    expect(await errorText()).toMatch(/^t3_refused: T3 refused the command \(T3: thread_busy\)/);
  });

  it("a gate crash is internal, with no detail of the cause", async () => {
    refuse({ error: "internal", message: "the gate failed unexpectedly" }, 500);
    expect(await errorText()).toMatch(/^internal: /);
  });
});
