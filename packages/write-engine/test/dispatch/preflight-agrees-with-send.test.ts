/**
 * `wouldPass` (t3_preflight, ADR 0075) and the send cannot disagree: each case goes through the
 * preflight and then through the real send under a lease whose scope is the one the preflight
 * judged (the default grant's ceiling, approval-required). A case the preflight passes completes;
 * a case it refuses is refused by the send with the code and reason the preflight named first.
 * Provider readiness is one of the send's guards: a launch or a message to a provider T3 reports
 * as not ready is refused and nothing reaches the simulator.
 */
import { randomUUID } from "node:crypto";
import type { ProviderState } from "@t3-connector/t3-sim";
import { describe, expect, it } from "vitest";
import { DEFAULT_RUNTIME_CEILING, SAMPLE_IDS } from "../../src/actions/index.js";
import { wouldPass } from "../../src/dispatch/would-pass.js";
import type { WouldPassRequest } from "../../src/dispatch/would-pass-types.js";
import {
  dispatchFailure,
  type Harness,
  LEASE_ID,
  simulatorWorkspace,
  useHarness,
} from "./support/harness.js";

let harness: Harness;
const IDLE = randomUUID();
const WAITING = randomUUID();
const FULL_ACCESS = randomUUID();

useHarness(
  {
    aliases: ["alpha", "beta"],
    seed: (env) => {
      const projectId = SAMPLE_IDS.projectId;
      env.model.addThread({ id: IDLE, projectId, state: "completed", runtimeMode: "approval-required" });
      env.model.addThread({
        id: WAITING,
        projectId,
        state: "waiting_approval",
        runtimeMode: "approval-required",
      });
      env.model.addThread({ id: FULL_ACCESS, projectId, state: "completed", runtimeMode: "full-access" });
    },
  },
  (ready) => {
    harness = ready;
    harness.lease.scope = { ...harness.lease.scope, runtimeMode: DEFAULT_RUNTIME_CEILING };
  },
);

const launch = (extra: Record<string, unknown> = {}) => ({
  projectId: SAMPLE_IDS.projectId,
  title: `launch ${randomUUID()}`,
  modelSelection: { instanceId: "codex", model: "gpt-5.6-sol" },
  workspaceStrategy: { type: "root" },
  runtimeMode: "approval-required",
  text: "hello",
  ...extra,
});
const send = (threadId: string, operationId: string) => ({
  threadId,
  text: "go on",
  clientRequestId: operationId,
  delivery: "start_immediately",
});

interface Case {
  readonly name: string;
  readonly action: "thread.launch" | "thread.send";
  readonly input: (operationId: string) => unknown;
  readonly provider?: ProviderState;
  /** The first reason both give, or null when both pass. */
  readonly expected: { code: string; reason: string } | null;
}

const CASES: Case[] = [
  { name: "a launch within the ceiling", action: "thread.launch", input: () => launch(), expected: null },
  {
    name: "a launch above the default ceiling",
    action: "thread.launch",
    input: () => launch({ runtimeMode: "full-access" }),
    expected: { code: "runtime_mode_above_lease", reason: "runtime_mode_above_lease" },
  },
  {
    name: "a launch on a provider whose CLI is missing",
    action: "thread.launch",
    input: () => launch(),
    provider: "not_installed",
    expected: { code: "guard_refused", reason: "provider_not_ready" },
  },
  {
    name: "a launch on a disabled provider",
    action: "thread.launch",
    input: () => launch(),
    provider: "disabled",
    expected: { code: "guard_refused", reason: "provider_not_ready" },
  },
  {
    name: "a launch of a model the provider does not list",
    action: "thread.launch",
    input: () => launch({ modelSelection: { instanceId: "codex", model: "gpt-0" } }),
    expected: { code: "guard_refused", reason: "provider_model_unavailable" },
  },
  {
    name: "a message to an idle thread",
    action: "thread.send",
    input: (id) => send(IDLE, id),
    expected: null,
  },
  {
    name: "a message to a thread whose provider is not ready",
    action: "thread.send",
    input: (id) => send(IDLE, id),
    provider: "not_installed",
    expected: { code: "guard_refused", reason: "provider_not_ready" },
  },
  {
    name: "a message to a thread waiting on an approval",
    action: "thread.send",
    input: (id) => send(WAITING, id),
    expected: { code: "guard_refused", reason: "thread_pending_request" },
  },
  {
    name: "a message to a thread running in full-access",
    action: "thread.send",
    input: (id) => send(FULL_ACCESS, id),
    expected: { code: "runtime_mode_above_lease", reason: "runtime_mode_above_lease" },
  },
];

describe("t3_preflight and the send judge every case alike", () => {
  for (const testCase of CASES) {
    it(`${testCase.name}: ${testCase.expected === null ? "both pass" : testCase.expected.reason}`, async () => {
      const alpha = harness.env("alpha");
      alpha.model.setProviderState("codex", testCase.provider ?? "ready");
      try {
        const operationId = `op-${randomUUID()}`;
        const input = testCase.input(operationId);
        const request: WouldPassRequest = {
          action: testCase.action,
          environment: "alpha",
          operationId,
          input,
          scope: harness.lease.scope,
        };
        const before = alpha.model.receivedCommands.length;
        const answer = await wouldPass(
          { registry: harness.registry, verifyWorkspace: simulatorWorkspace },
          request,
        );
        expect(alpha.model.receivedCommands.length).toBe(before);
        const dispatched = harness.dispatcher.dispatch({
          leaseId: LEASE_ID,
          environment: "alpha",
          operationId,
          action: testCase.action,
          input,
        });
        if (testCase.expected === null) {
          expect(answer).toMatchObject({ wouldPass: true, reasons: [] });
          await expect(dispatched).resolves.toMatchObject({ state: "completed" });
          expect(alpha.model.receivedCommands.length).toBe(before + 1);
          return;
        }
        expect(answer.wouldPass).toBe(false);
        expect(answer.reasons[0]).toMatchObject(testCase.expected);
        const refused = await dispatchFailure(dispatched);
        expect({ code: refused.code, reason: refused.details?.reason }).toEqual(testCase.expected);
        // Refused before anything was sent.
        expect(alpha.model.receivedCommands.length).toBe(before);
      } finally {
        alpha.model.setProviderState("codex", "ready");
      }
    });
  }
});

describe("t3_preflight recommends another environment for a launch", () => {
  it("names beta, where the provider is ready, when alpha's is not", async () => {
    harness.env("alpha").model.setProviderState("codex", "not_installed");
    try {
      const request = { action: "thread.launch" as const, input: launch(), scope: harness.lease.scope };
      const deps = { registry: harness.registry, verifyWorkspace: simulatorWorkspace };
      const named = await wouldPass(deps, { ...request, environment: "alpha" });
      expect(named).toMatchObject({
        environment: "alpha",
        wouldPass: false,
        reasons: [{ code: "guard_refused", reason: "provider_not_ready" }],
        recommendation: { environment: "beta" },
      });
      expect(named.recommendation?.reason).toContain("codex is ready");
      const unnamed = await wouldPass(deps, request);
      expect(unnamed).toMatchObject({
        environment: "beta",
        wouldPass: true,
        recommendation: { environment: "beta" },
      });
    } finally {
      harness.env("alpha").model.setProviderState("codex", "ready");
    }
  });

  it("warns of an active thread on the same title, naming it", async () => {
    const deps = { registry: harness.registry, verifyWorkspace: simulatorWorkspace };
    const input = launch();
    const first = await harness.dispatcher.dispatch({
      leaseId: LEASE_ID,
      environment: "beta",
      operationId: `op-${randomUUID()}`,
      action: "thread.launch",
      input,
    });
    const answer = await wouldPass(deps, {
      action: "thread.launch",
      environment: "beta",
      input: { ...input, title: ` ${input.title.toUpperCase()} ` },
      scope: harness.lease.scope,
    });
    expect(answer.wouldPass).toBe(true);
    expect(answer.duplicates).toEqual({
      checked: true,
      threads: [{ threadId: first.derivedIds.threadId, title: input.title, matches: ["title"] }],
    });
  });
});
