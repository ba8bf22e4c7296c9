/**
 * What the bridge sends the gate for `t3_pedir_aprovacao` (ADR 0017), recorded by a stand-in relay
 * on a real socket: the client's proposal and purpose, the clientInfo it gave at initialize, this
 * bridge process's id (so its newer request supersedes its older one), and the wait.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { createRelayClient } from "../../src/relay-client.js";
import { type BridgeSession, textOf, useBridgeOverFakeGate } from "../support/bridge-client.js";
import type { FakeGate } from "../support/fake-gate.js";

let gate: FakeGate;
let bridge: BridgeSession;

useBridgeOverFakeGate((started, session) => {
  gate = started;
  bridge = session;
});

const LINK = {
  active: false,
  requestId: "r".repeat(43),
  url: "http://localhost:7433/?request=rrr",
  expiresAt: "2026-12-03T09:00:00.000Z",
  scopeFingerprint: "f".repeat(64),
  covered: [],
  leftOut: [],
  decision: "pending",
};
beforeEach(() => {
  gate.requests.length = 0;
  gate.answer = () => ({ status: 200, body: LINK });
});

describe("t3_pedir_aprovacao relays the client's proposal", () => {
  it("sends purpose, proposal, clientInfo, the bridge's own id and the wait in milliseconds", async () => {
    const result = await bridge.call("t3_pedir_aprovacao", {
      purpose: "pin the release thread",
      actions: ["thread.pin"],
      threads: ["thread-1"],
      waitSeconds: 5,
    });
    expect(result.isError).toBeFalsy();
    expect(gate.requests[0]?.body).toEqual({
      op: "request_approval",
      purpose: "pin the release thread",
      actions: ["thread.pin"],
      threads: ["thread-1"],
      client: { name: "bridge-test", version: "0.0.0" },
      bridge: expect.stringMatching(/^[0-9a-f-]{36}$/),
      waitMs: 5000,
    });
    expect(result.structuredContent).toMatchObject({
      authorized: false,
      decision: "pending",
      approvalUrl: LINK.url,
      scopeFingerprint: LINK.scopeFingerprint,
      expiresAt: LINK.expiresAt,
    });
    // The same process always names itself the same way.
    await bridge.call("t3_pedir_aprovacao", {});
    expect(gate.requests[1]?.body.bridge).toBe(gate.requests[0]?.body.bridge);
  });

  it("presents one holder secret of its own on every call, never shows one in an answer, and none where no lease is named", async () => {
    gate.answer = (request) =>
      request.body.op === "environments"
        ? { status: 200, body: { environments: [] } }
        : { status: 200, body: { ...LINK, leaseSecret: "handed-back-by-an-older-gate" } };
    const asked = await bridge.call("t3_pedir_aprovacao", {});
    await bridge.call("t3_pedir_aprovacao", { requestId: LINK.requestId });
    await bridge.call("t3_pedir_aprovacao", { actions: ["thread.pin"] });
    expect(JSON.stringify(asked)).not.toContain("handed-back");
    const secrets = gate.requests.map((request) => request.leaseSecret);
    expect(secrets[0]).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // The same secret every time (ADR 0040): the gate keeps it for each request and lease of this process.
    expect(new Set(secrets)).toEqual(new Set([secrets[0]]));
    const relay = createRelayClient({ port: gate.port, stateDir: gate.stateDir, timeoutMs: 10_000 });
    await relay.call({ op: "environments" });
    expect(gate.requests.at(-1)?.body).toEqual({ op: "environments" });
    expect(gate.requests.at(-1)?.leaseSecret).toBeUndefined();
  });

  it("waits on an existing request with requestId alone, proposing nothing", async () => {
    gate.answer = () => ({
      status: 200,
      body: { active: false, requestId: LINK.requestId, decision: "denied" },
    });
    const result = await bridge.call("t3_pedir_aprovacao", { requestId: LINK.requestId, waitSeconds: 2 });
    expect(gate.requests[0]?.body).toEqual({
      op: "request_approval",
      requestId: LINK.requestId,
      waitMs: 2000,
    });
    expect(result.structuredContent).toMatchObject({
      authorized: false,
      decision: "denied",
      requestId: LINK.requestId,
    });
    expect(result.structuredContent).not.toHaveProperty("approvalUrl");
  });

  it("passes the gate's proposal_invalid on as itself, with the valid names", async () => {
    gate.answer = () => ({
      status: 403,
      body: {
        error: "proposal_invalid",
        message:
          'the gate\'s live inventory does not list actions "thread.explode". Valid environments: alpha',
        details: { unknown: { actions: ["thread.explode"] }, valid: { environments: ["alpha"] } },
      },
    });
    const result = await bridge.call("t3_pedir_aprovacao", { actions: ["thread.explode"] });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(
      'proposal_invalid: the gate\'s live inventory does not list actions "thread.explode". Valid environments: alpha',
    );
  });

  it("tells a client waiting on an id the gate never issued to ask again without it", async () => {
    gate.answer = () => ({
      status: 403,
      body: { error: "request_invalid", message: "no approval request has this id" },
    });
    const result = await bridge.call("t3_pedir_aprovacao", { requestId: "nope" });
    expect(textOf(result)).toMatch(
      /^request_invalid: no approval request has this id Call t3_pedir_aprovacao without requestId/,
    );
  });
});
