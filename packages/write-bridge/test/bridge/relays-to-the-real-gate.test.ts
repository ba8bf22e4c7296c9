/**
 * The bridge against the real gate (startGate over the simulator, via the gate's own test
 * harness). The lease is granted through the harness's LeaseKeeper seam; the passkey ceremony is
 * the gate's own tests' business.
 */

import type { GateHarness } from "@t3-connector/test-support/gate-harness";
import {
  IDLE_THREAD,
  LEASED_PROJECT,
  OUTSIDE_THREAD,
  RUNNING_THREAD,
} from "@t3-connector/test-support/sim-world";
import { describe, expect, it } from "vitest";
import { type Body, type BridgeSession, structured, textOf } from "../support/bridge-client.js";
import { useBridgeOverRealGate } from "../support/bridge-over-real-gate.js";

let h: GateHarness;
let bridge: BridgeSession;

useBridgeOverRealGate((harness, session) => {
  h = harness;
  bridge = session;
});

const WAITING_THREAD = "5b0c6f2e-3f5d-4d8e-9a51-0c7a9e2d4b11";

describe("the bridge against the real gate relay", () => {
  it("offers an approval link covering every environment when no lease is open", async () => {
    h.gate.lease.closeAll("test_reset");
    const result = await bridge.call("t3_pedir_aprovacao", {});
    expect(result.isError).toBeFalsy();
    const answer = structured(result);
    expect(answer).toMatchObject({ authorized: false, durationMinutes: 60, unavailableEnvironments: [] });
    expect(answer.approvalUrl).toBe(`http://localhost:${h.gate.port}/?request=${answer.requestId}`);
    expect(answer.environments).toEqual(
      ["alpha", "beta"].map((alias) =>
        expect.objectContaining({ alias, environmentId: h.world.env(alias).environmentId, projectCount: 2 }),
      ),
    );
  });

  it("answers the open lease once the human approved", async () => {
    const leaseId = await h.grantLease();
    const answer = structured(await bridge.call("t3_pedir_aprovacao", {}));
    expect(answer).toMatchObject({ authorized: true, leaseId });
    expect(answer.environments).toHaveLength(2);
  });

  it("dispatches a write to the simulator exactly once; a repeat with the same operationId does not resend", async () => {
    const leaseId = await h.grantLease();
    const alpha = h.world.env("alpha");
    const before = alpha.model.receivedCommands.length;
    const args = {
      leaseId,
      environment: "alpha",
      operationId: "bridge-pin-1",
      input: { threadId: IDLE_THREAD },
    };
    const first = await bridge.call("t3_escrever_thread_pin", args);
    expect(first.isError).toBeFalsy();
    expect(structured(first)).toMatchObject({
      state: "completed",
      replayed: false,
      action: "thread.pin",
      environmentId: alpha.environmentId,
    });
    const sent = alpha.model.receivedCommands.slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ type: "thread.pin", payload: { threadId: IDLE_THREAD } });
    const again = await bridge.call("t3_escrever_thread_pin", args);
    expect(structured(again)).toMatchObject({
      state: "completed",
      replayed: true,
      receipt: structured(first).receipt,
    });
    expect(alpha.model.receivedCommands.length - before).toBe(1);

    const reconciled = await bridge.call("t3_reconciliar_escrita", {
      leaseId,
      environment: "alpha",
      operationId: "bridge-pin-1",
    });
    expect(structured(reconciled)).toMatchObject({ state: "completed", operationId: "bridge-pin-1" });
    expect(alpha.model.receivedCommands.length - before).toBe(1);
  });

  it("refuses a different input under the same operationId, and writes outside the lease", async () => {
    const leaseId = await h.grantLease({ environments: ["alpha"] });
    const count = h.world.commandCount();
    const title = (text: string, extra: Body = {}) =>
      bridge.call("t3_escrever_thread_title", {
        leaseId,
        environment: "alpha",
        operationId: "bridge-title-1",
        input: { threadId: IDLE_THREAD, title: text },
        ...extra,
      });
    expect((await title("one")).isError).toBeFalsy();
    const sentOnce = h.world.commandCount();
    expect(sentOnce - count).toBe(1);
    expect(textOf(await title("two"))).toMatch(/^operation_conflict: /);
    expect(textOf(await title("one", { environment: "beta" }))).toMatch(/^environment_not_in_lease: /);
    expect(textOf(await title("one", { environment: "nowhere" }))).toMatch(/^environment_unknown: /);
    expect(textOf(await title("one", { leaseId: "not-the-lease" }))).toMatch(
      /^lease_closed: .*t3_pedir_aprovacao/,
    );
    const outside = await bridge.call("t3_escrever_thread_pin", {
      leaseId,
      environment: "alpha",
      operationId: "bridge-outside",
      input: { threadId: OUTSIDE_THREAD },
    });
    expect(textOf(outside)).toMatch(/^scope_denied: /);
    expect(h.world.commandCount()).toBe(sentOnce);
  });

  it("sends a message with the caller's clientRequestId, and refuses a mismatched one without sending", async () => {
    const leaseId = await h.grantLease({ environments: ["alpha"] });
    const alpha = h.world.env("alpha");
    const before = alpha.model.receivedCommands.length;
    const send = (operationId: string, clientRequestId: string) =>
      bridge.call("t3_escrever_thread_send", {
        leaseId,
        environment: "alpha",
        operationId,
        input: {
          threadId: IDLE_THREAD,
          text: "Run the tests.",
          clientRequestId,
          delivery: "start_immediately",
        },
      });
    const mismatch = await send("bridge-send-2", "something-else");
    expect(textOf(mismatch)).toMatch(/^[a-z_]+: /);
    expect(textOf(mismatch)).toContain("request_id_mismatch");
    expect(alpha.model.receivedCommands.length).toBe(before);
    const sent = await send("bridge-send-1", "bridge-send-1");
    expect(structured(sent)).toMatchObject({ state: "completed", action: "thread.send" });
    const commands = alpha.model.receivedCommands.slice(before);
    expect(commands.map((command) => command.type)).toEqual(["message.dispatch"]);
  });

  it("reads only the lease's projects and threads", async () => {
    h.world.env("alpha").model.addThread({
      id: WAITING_THREAD,
      projectId: LEASED_PROJECT,
      state: "waiting_user_input",
    });
    const leaseId = await h.grantLease({ environments: ["alpha"] });
    const where = { leaseId, environment: "alpha" };
    const projects = structured(await bridge.call("t3_projetos", where));
    expect(projects).toMatchObject({
      environment: { alias: "alpha", environmentId: h.world.env("alpha").environmentId },
      complete: true,
    });
    expect((projects.projects as Body[]).map((project) => project.projectId)).toEqual([LEASED_PROJECT]);

    const threads = structured(await bridge.call("t3_threads", where)).threads as Body[];
    expect(threads.map((thread) => thread.threadId).sort()).toEqual(
      [IDLE_THREAD, RUNNING_THREAD, WAITING_THREAD].sort(),
    );
    expect(threads.find((thread) => thread.threadId === RUNNING_THREAD)?.state).toBe("running");

    const attention = structured(await bridge.call("t3_atencao", where)).threads as Body[];
    expect(attention.map((thread) => [thread.threadId, thread.state])).toEqual([
      [WAITING_THREAD, "needs_intervention"],
    ]);
    const waiting = structured(await bridge.call("t3_thread", { ...where, threadId: WAITING_THREAD }));
    const pending = waiting.pendingRequests as Body[];
    expect(pending).toHaveLength(1);
    expect(JSON.stringify(pending[0]?.nextAction)).toContain("t3_escrever_runtime_request_answer");

    const thread = structured(await bridge.call("t3_thread", { ...where, threadId: RUNNING_THREAD }));
    expect(thread).toMatchObject({ threadId: RUNNING_THREAD, state: "running", pendingRequests: [] });

    const countBeforeSend = h.world.commandCount();
    const blockedSend = await bridge.call("t3_escrever_thread_send", {
      leaseId,
      environment: "alpha",
      operationId: "bridge-send-blocked",
      input: {
        threadId: WAITING_THREAD,
        text: "Any news?",
        clientRequestId: "bridge-send-blocked",
        delivery: "queue_after_active",
        deferUntilActiveCompletes: true,
      },
    });
    expect(textOf(blockedSend)).toMatch(/^guard_refused: .*t3_escrever_runtime_request_answer/);
    expect(h.world.commandCount()).toBe(countBeforeSend);

    const question = pending[0] as Body & {
      requestId: string;
      content?: { questions?: Array<{ id: string }> };
    };
    const answers = Object.fromEntries((question.content?.questions ?? []).map((q) => [q.id, "yes"]));
    expect(Object.keys(answers).length).toBeGreaterThan(0);
    const answered = await bridge.call("t3_escrever_runtime_request_answer", {
      leaseId,
      environment: "alpha",
      operationId: "bridge-answer-1",
      input: { threadId: WAITING_THREAD, requestId: question.requestId, answers },
    });
    expect(answered.isError, textOf(answered)).toBeFalsy();
    const resumed = structured(await bridge.call("t3_thread", { ...where, threadId: WAITING_THREAD }));
    expect(resumed.pendingRequests).toEqual([]);
    expect(resumed.state).not.toBe("needs_intervention");

    const messages = structured(
      await bridge.call("t3_mensagens", { ...where, threadId: IDLE_THREAD, limit: 3 }),
    );
    expect(messages).toMatchObject({ threadId: IDLE_THREAD });
    expect(Array.isArray(messages.messages)).toBe(true);

    expect(textOf(await bridge.call("t3_thread", { ...where, threadId: OUTSIDE_THREAD }))).toMatch(
      /^thread_not_found: /,
    );
    h.gate.lease.closeAll("revoked");
    expect(textOf(await bridge.call("t3_projetos", where))).toMatch(/^lease_closed: /);
  });

  it("says gate_unavailable once the gate has stopped", async () => {
    await h.gate.close();
    const result = await bridge.call("t3_pedir_aprovacao", {});
    expect(textOf(result)).toMatch(/^gate_unavailable: /);
  });
});
