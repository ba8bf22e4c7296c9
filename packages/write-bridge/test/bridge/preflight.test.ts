/**
 * `t3_preflight` through the bridge and the real gate relay over the simulator (ADR 0075), with the
 * MCP SDK client: a launch above the default grant's ceiling would not pass
 * (runtime_mode_above_lease); a launch on an environment whose provider T3 reports as not ready
 * answers the guard's code and recommends the other environment; the send itself refuses a
 * message to a thread whose provider is not ready, and nothing reaches T3. Hostile inputs (an
 * unknown environment, a project or thread that is not the client's, an oversized input) get a
 * typed error and change nothing.
 */
import { randomUUID } from "node:crypto";
import { type GateHarness, startGateHarness } from "@t3-connector/test-support/gate-harness";
import { IDLE_THREAD, LEASED_PROJECT, startSimWorld } from "@t3-connector/test-support/sim-world";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BridgeSession, connectBridge, structured, textOf } from "../support/bridge-client.js";

let h: GateHarness;
let bridge: BridgeSession;

beforeAll(async () => {
  h = await startGateHarness({ world: await startSimWorld() });
  bridge = await connectBridge({ port: h.gate.port, stateDir: h.world.stateDir });
});

afterAll(async () => {
  await bridge?.close();
  await h?.close();
  await h?.world.close();
});

const launch = (extra: Record<string, unknown> = {}) => ({
  projectId: LEASED_PROJECT,
  title: `preflight ${randomUUID()}`,
  modelSelection: { instanceId: "codex", model: "gpt-5.6-sol" },
  workspaceStrategy: { type: "root" },
  text: "hello",
  ...extra,
});

/** Every command both environments accepted so far. */
const received = () =>
  h.world.env("alpha").model.receivedCommands.length + h.world.env("beta").model.receivedCommands.length;

describe("t3_preflight", () => {
  it("lists itself as a read", async () => {
    const tools = await bridge.client.listTools();
    const tool = tools.tools.find((candidate) => candidate.name === "t3_preflight");
    expect(tool?.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
  });

  it("answers a launch above the default ceiling: would not pass, runtime_mode_above_lease", async () => {
    const before = received();
    const answer = await bridge.call("t3_preflight", {
      action: "thread.launch",
      environment: "alpha",
      input: launch({ runtimeMode: "full-access" }),
    });
    expect(answer.isError, textOf(answer)).toBeFalsy();
    expect(structured(answer)).toMatchObject({
      environment: "alpha",
      wouldPass: false,
      summary: "would not pass: runtime_mode_above_lease",
      ceiling: "approval-required",
      reasons: [{ code: "runtime_mode_above_lease", reason: "runtime_mode_above_lease" }],
    });
    const within = await bridge.call("t3_preflight", {
      action: "thread.launch",
      environment: "alpha",
      input: launch(),
    });
    expect(structured(within)).toMatchObject({
      wouldPass: true,
      reasons: [],
      recommendation: { environment: "alpha" },
    });
    expect(received()).toBe(before);
  });

  it("answers the guard's code for a provider that is not ready, and recommends the other environment", async () => {
    const alpha = h.world.env("alpha");
    alpha.model.setProviderState("codex", "not_installed");
    try {
      const before = received();
      const named = await bridge.call("t3_preflight", {
        action: "thread.launch",
        environment: "alpha",
        input: launch(),
      });
      expect(structured(named)).toMatchObject({
        environment: "alpha",
        wouldPass: false,
        summary: "would not pass: guard_refused (provider_not_ready)",
        reasons: [{ code: "guard_refused", reason: "provider_not_ready" }],
        recommendation: { environment: "beta" },
      });
      expect(
        String(
          structured(named).recommendation &&
            (structured(named).recommendation as Record<string, unknown>).reason,
        ),
      ).toContain("codex is ready");
      const unnamed = await bridge.call("t3_preflight", { action: "thread.launch", input: launch() });
      expect(structured(unnamed)).toMatchObject({ environment: "beta", wouldPass: true });
      expect(received()).toBe(before);
    } finally {
      alpha.model.setProviderState("codex", "ready");
    }
  });

  it("the send itself refuses a message to a thread whose provider is not ready, and sends nothing", async () => {
    const leaseId = await h.grantLease({ environments: ["alpha"] });
    const alpha = h.world.env("alpha");
    alpha.model.setProviderState("codex", "disabled");
    try {
      const operationId = `send-${randomUUID()}`;
      const input = {
        threadId: IDLE_THREAD,
        text: "go on",
        clientRequestId: operationId,
        delivery: "start_immediately",
      };
      const judged = await bridge.call("t3_preflight", {
        action: "thread.send",
        environment: "alpha",
        operationId,
        input,
      });
      // Every reason the send has, in its order: the thread runs in full-access (T3's default),
      // above the default grant's ceiling, and its provider is off.
      expect(structured(judged)).toMatchObject({
        wouldPass: false,
        reasons: [
          { code: "runtime_mode_above_lease", reason: "runtime_mode_above_lease" },
          { code: "guard_refused", reason: "provider_not_ready" },
        ],
        recommendation: null,
      });
      const before = alpha.model.receivedCommands.length;
      const refused = await bridge.call("t3_escrever_thread_send", {
        leaseId,
        environment: "alpha",
        operationId,
        input,
      });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toMatch(/^guard_refused: provider instance codex is not ready/);
      expect(alpha.model.receivedCommands.length).toBe(before);
    } finally {
      alpha.model.setProviderState("codex", "ready");
    }
  });

  it("answers hostile inputs with a typed error and changes nothing", async () => {
    const before = received();
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ action: "thread.launch", environment: "nowhere", input: launch() }, /^environment_unknown: /],
      [
        { action: "thread.launch", environment: "alpha", input: launch({ projectId: "project-not-yours" }) },
        /^not_found: /,
      ],
      [{ action: "thread.launch", input: launch({ projectId: "project-not-yours" }) }, /^not_found: /],
      [
        {
          action: "thread.send",
          environment: "alpha",
          input: {
            threadId: "thread-not-yours",
            text: "x",
            clientRequestId: "c1",
            delivery: "start_immediately",
          },
        },
        /^thread_not_found: /,
      ],
      [
        {
          action: "thread.send",
          input: { threadId: IDLE_THREAD, text: "x", clientRequestId: "c1", delivery: "start_immediately" },
        },
        /^environment_required: /,
      ],
      [
        { action: "thread.launch", environment: "alpha", input: launch({ surprise: true }) },
        /^invalid_input: /,
      ],
      [
        { action: "thread.launch", environment: "alpha", input: launch({ text: "x".repeat(200_000) }) },
        /^invalid_input: /,
      ],
    ];
    for (const [args, code] of cases) {
      const answer = await bridge.call("t3_preflight", args);
      expect(answer.isError, JSON.stringify(args).slice(0, 200)).toBe(true);
      expect(textOf(answer)).toMatch(code);
    }
    expect(received()).toBe(before);
  });
});
