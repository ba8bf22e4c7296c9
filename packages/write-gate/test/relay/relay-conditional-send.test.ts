import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { type GateHarness, startGateHarness } from "@t3-connector/test-support/gate-harness";
import { IDLE_THREAD, LEASED_PROJECT, RUNNING_THREAD } from "@t3-connector/test-support/sim-world";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AUDIT_FILE } from "../../src/audit/index.js";

let h: GateHarness;

beforeAll(async () => {
  h = await startGateHarness();
});
afterAll(async () => {
  await h?.close();
});

type Body = Record<string, unknown>;

function shellOf(threadId: string) {
  return h.world.env("alpha").model.getThread(threadId)?.shell as {
    activeRunId?: string | null;
    latestRunId?: string | null;
  };
}

function conditional(leaseId: string, operationId: string, input: Body): Body {
  return {
    op: "conditional_send",
    leaseId,
    environment: "alpha",
    operationId,
    input: { clientRequestId: operationId, ...input },
  };
}

async function auditEvents(): Promise<Body[]> {
  const text = await readFile(join(h.world.stateDir, AUDIT_FILE), "utf8");
  return text
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Body);
}

describe("relay op conditional_send", () => {
  it("sends after the run ended, once, with an audit line; a repeat replays", async () => {
    const leaseId = await h.grantLease();
    const alpha = h.world.env("alpha");
    const before = alpha.model.receivedCommands.length;
    const request = conditional(leaseId, "op-relay-cond", {
      threadId: IDLE_THREAD,
      afterRunId: shellOf(IDLE_THREAD).latestRunId,
      modelSelection: { instanceId: "codex", model: "gpt-5.6-luna" },
      text: "Next, run the linter.",
    });
    const answer = await h.relay(request);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      state: "completed",
      replayed: false,
      delivery: { observed: true, deliveredAs: "started" },
    });
    expect(alpha.model.receivedCommands.slice(before).map((command) => command.type)).toEqual([
      "thread.model-selection.set",
      "message.dispatch",
    ]);
    const again = await h.relay(request);
    expect(again.body).toMatchObject({ state: "completed", replayed: true });
    expect(alpha.model.receivedCommands).toHaveLength(before + 2);
    const lines = (await auditEvents()).filter((event) => event.event === "conditional_send");
    expect(lines.map((event) => [event.operationId, event.state, event.replayed])).toEqual([
      ["op-relay-cond", "completed", false],
      ["op-relay-cond", "completed", true],
    ]);
    expect(JSON.stringify(lines)).not.toContain("linter");
    // The lease page lists the request once (the repeat was a replay).
    expect(
      h.gate.lease
        .writes(h.gate.lease.list()[0]?.leaseId ?? "")
        .filter((write) => write.operationId === "op-relay-cond"),
    ).toEqual([
      expect.objectContaining({
        action: "thread.conditional-send",
        state: "completed",
        threadId: IDLE_THREAD,
      }),
    ]);
  });

  it("answers precondition_pending for an active run, sending nothing", async () => {
    const leaseId = await h.grantLease();
    const before = h.world.commandCount();
    const answer = await h.relay(
      conditional(leaseId, "op-relay-cond-pending", {
        threadId: RUNNING_THREAD,
        afterRunId: shellOf(RUNNING_THREAD).activeRunId,
        text: "After you finish.",
      }),
    );
    expect(answer.body).toMatchObject({ state: "precondition_pending", reason: "run_active" });
    expect(h.world.commandCount()).toBe(before);
  });

  it("refuses unknown keys in the op, and a closed lease before any step (audited not_recorded)", async () => {
    const leaseId = await h.grantLease();
    const strict = await h.relay({
      ...conditional(leaseId, "op-relay-cond-x", { threadId: IDLE_THREAD, afterRunId: "r", text: "x" }),
      delivery: "steer_active",
    });
    expect([strict.status, (strict.body as Body).error]).toEqual([400, "invalid_request"]);
    const closed = await h.relay(
      conditional("lease-that-is-not-open", "op-relay-cond-closed", {
        threadId: IDLE_THREAD,
        afterRunId: "run-long-gone",
        text: "x",
      }),
    );
    expect(closed.status).toBe(403);
    expect(closed.body).toMatchObject({ error: "lease_closed" });
    const line = (await auditEvents()).find((event) => event.operationId === "op-relay-cond-closed");
    expect(line).toMatchObject({ event: "conditional_send", state: "not_recorded", code: "lease_closed" });
  });

  it("ends the lease when the send step's answer is lost, as the engine's outcome asks (ADR 0063)", async () => {
    const leaseId = await h.grantLease();
    const alpha = h.world.env("alpha");
    // A thread of its own whose run has ended: the first test's run on IDLE_THREAD may still be
    // moving through its states when this one starts.
    const threadId = alpha.model.addThread({ projectId: LEASED_PROJECT, state: "completed" });
    const before = alpha.model.receivedCommands.length;
    alpha.faults.set({ dropSocketAfterDispatch: true });
    try {
      const lost = await h.relay(
        conditional(leaseId, "op-relay-cond-lost", {
          threadId,
          afterRunId: shellOf(threadId).latestRunId,
          text: "Then summarise.",
        }),
      );
      expect(lost.body, JSON.stringify(lost.body)).toMatchObject({ state: "uncertain", failedStep: "send" });
      // What the engine tells the gate is the gate's: it never reaches the client.
      expect(lost.body).not.toHaveProperty("endsLease");
    } finally {
      alpha.faults.set({ dropSocketAfterDispatch: undefined });
    }
    expect(alpha.model.receivedCommands).toHaveLength(before + 1);
    expect(h.gate.lease.get(leaseId)).toBeNull();
    await h.gate.audit.settled();
    const closed = (await auditEvents()).filter((event) => event.event === "lease_closed");
    expect(closed.at(-1)).toMatchObject({ reason: "uncertain_send" });
  });
});
