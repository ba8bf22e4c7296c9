/**
 * The relay's `preflight` op runs at most MAX_PREFLIGHTS_AT_ONCE at once per gate (ADR 0075): a
 * client looping on it cannot make the gate survey every environment without end. One more is
 * refused at once, typed, without reading anything; once an answer is out, the next call runs.
 * The survey is held open here so the calls overlap for certain (no timing).
 */
import type { LeaseScope } from "@t3-connector/write-engine/actions";
import type { WouldPassRequest } from "@t3-connector/write-engine/engine";
import { describe, expect, it } from "vitest";
import { MAX_PREFLIGHTS_AT_ONCE, PreflightSlots, preflightOp } from "../../src/relay/preflight-op.js";

const SCOPE: LeaseScope = { scopeVersion: 2, runtimeMode: "approval-required", environments: [] };

function heldDesk() {
  const waiting: (() => void)[] = [];
  let surveys = 0;
  return {
    approvals: {
      defaultScope: () => {
        surveys += 1;
        return new Promise<LeaseScope>((resolve) => waiting.push(() => resolve(SCOPE)));
      },
    },
    surveys: () => surveys,
    releaseAll: () => {
      for (const release of waiting.splice(0)) release();
    },
  };
}

describe("the preflight op's budget", () => {
  it("refuses one more than the budget at once, and runs again once the others answered", async () => {
    const desk = heldDesk();
    const judged: WouldPassRequest[] = [];
    const judge = async (request: WouldPassRequest) => {
      judged.push(request);
      return {
        action: request.action,
        environment: null,
        wouldPass: true,
        summary: "would pass",
        reasons: [],
        ceiling: request.scope.runtimeMode,
        duplicates: { checked: true, threads: [] },
        recommendation: null,
        considered: [],
      };
    };
    const deps = { approvals: desk.approvals, preflight: { judge, slots: new PreflightSlots() } };
    const op = { op: "preflight" as const, action: "thread.launch" as const, input: {} };
    const running = Array.from({ length: MAX_PREFLIGHTS_AT_ONCE }, () => preflightOp(op, deps));
    await expect(preflightOp(op, deps)).rejects.toMatchObject({
      code: "client_budget_exceeded",
      details: { budget: "preflights_at_once", limit: MAX_PREFLIGHTS_AT_ONCE },
    });
    expect(desk.surveys()).toBe(MAX_PREFLIGHTS_AT_ONCE);
    // Another gate's slots are its own: its preflight runs while this gate's are all taken.
    const otherGate = { approvals: desk.approvals, preflight: { judge, slots: new PreflightSlots() } };
    const other = preflightOp(op, otherGate);
    expect(desk.surveys()).toBe(MAX_PREFLIGHTS_AT_ONCE + 1);
    desk.releaseAll();
    await expect(other).resolves.toMatchObject({ action: "thread.launch" });
    const answers = await Promise.all(running);
    expect(answers.map((answer) => answer.ceiling)).toEqual(
      Array(MAX_PREFLIGHTS_AT_ONCE).fill("approval-required"),
    );
    expect(judged.every((request) => request.scope === SCOPE)).toBe(true);
    const next = preflightOp(op, deps);
    desk.releaseAll();
    await expect(next).resolves.toMatchObject({ action: "thread.launch" });
  });
});
