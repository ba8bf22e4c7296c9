import { describe, expect, it } from "vitest";
import {
  actionLabel,
  CONDITIONAL_SEND,
  CONDITIONAL_SEND_STATES,
  conditionalSendInput,
  conditionalSendRequiredActions,
  conditionalSendSteps,
  evaluateRunPrecondition,
  getAction,
  prepareAction,
  SAMPLE_CONDITIONAL_SEND_INPUT,
  stepVerdict,
} from "../../src/actions/index.js";

const R = "run:thread:t:ordinal:1";

describe("conditional send input", () => {
  it("accepts the sample, defaults waitMs to 0 and refuses unknown keys", () => {
    const { waitMs: _w, ...noWait } = SAMPLE_CONDITIONAL_SEND_INPUT;
    expect(conditionalSendInput.parse(noWait).waitMs).toBe(0);
    expect(
      conditionalSendInput.safeParse({ ...SAMPLE_CONDITIONAL_SEND_INPUT, delivery: "steer_active" }).success,
    ).toBe(false);
    expect(conditionalSendInput.safeParse({ ...SAMPLE_CONDITIONAL_SEND_INPUT, waitMs: 10_001 }).success).toBe(
      false,
    );
  });

  it("keeps clientRequestId short enough for the longest step suffix", () => {
    const base = SAMPLE_CONDITIONAL_SEND_INPUT;
    expect(conditionalSendInput.safeParse({ ...base, clientRequestId: "x".repeat(1008) }).success).toBe(true);
    expect(conditionalSendInput.safeParse({ ...base, clientRequestId: "x".repeat(1009) }).success).toBe(
      false,
    );
  });

  it("is described for people like a catalogue entry, with its own label and final states", () => {
    expect(CONDITIONAL_SEND.label).toBe("Send after run ends");
    expect(actionLabel(CONDITIONAL_SEND.action)).toBe(CONDITIONAL_SEND.label);
    expect(CONDITIONAL_SEND_STATES).toEqual([
      "precondition_pending",
      "precondition_failed",
      "failed",
      "uncertain",
      "completed",
    ]);
  });
});

describe("conditional send steps", () => {
  const input = conditionalSendInput.parse(SAMPLE_CONDITIONAL_SEND_INPUT);

  it("sets the model, then sends start_immediately, each under its own journal suffix", () => {
    const steps = conditionalSendSteps(input);
    expect(steps.map((step) => [step.step, step.action, step.operationId])).toEqual([
      ["model-selection", "thread.model-selection.set", "op-sample-0001:model-selection"],
      ["send", "thread.send", "op-sample-0001:send"],
    ]);
    expect(steps[1]?.input).toEqual({
      threadId: input.threadId,
      clientRequestId: "op-sample-0001:send",
      text: input.text,
      delivery: "start_immediately",
    });
  });

  it("builds step inputs the step actions accept, with the send's clientRequestId equal to its operationId", () => {
    for (const step of conditionalSendSteps(input)) {
      expect(getAction(step.action).inputSchema.safeParse(step.input).success).toBe(true);
      const prepared = prepareAction(step.action, step.input, "k".repeat(64));
      if (step.action === "thread.send") {
        expect(prepared.ids.clientRequestId).toBe(step.operationId);
        expect(prepared.payload.kind === "dispatch" && prepared.payload.command.dispatchMode).toEqual({
          type: "start_immediately",
        });
      }
    }
  });

  it("has only the send step, and needs only thread.send, without a modelSelection", () => {
    const { modelSelection: _m, ...plain } = SAMPLE_CONDITIONAL_SEND_INPUT;
    const parsed = conditionalSendInput.parse(plain);
    expect(conditionalSendSteps(parsed).map((step) => step.step)).toEqual(["send"]);
    expect(conditionalSendRequiredActions(parsed)).toEqual(["thread.send"]);
    expect(conditionalSendRequiredActions(input)).toEqual(["thread.send", "thread.model-selection.set"]);
  });
});

describe("run precondition", () => {
  it("waits while run R is active", () => {
    expect(
      evaluateRunPrecondition({ activeRunId: R, latestRunId: R, latestRunStatus: "running" }, R),
    ).toEqual({
      outcome: "pending",
      reason: "run_active",
    });
  });

  it("fails when another run is active, R was superseded, or no run is known", () => {
    const other = evaluateRunPrecondition(
      { activeRunId: "r2", latestRunId: "r2", latestRunStatus: "running" },
      R,
    );
    expect(other.reason).toBe("other_run_active");
    const superseded = evaluateRunPrecondition(
      { activeRunId: null, latestRunId: "r2", latestRunStatus: "completed" },
      R,
    );
    expect(superseded.reason).toBe("run_superseded");
    expect(
      evaluateRunPrecondition({ activeRunId: null, latestRunId: null, latestRunStatus: null }, R).reason,
    ).toBe("run_unknown");
  });

  it("fails when R is latest but not terminal, and is met when R ended", () => {
    expect(
      evaluateRunPrecondition({ activeRunId: null, latestRunId: R, latestRunStatus: "waiting" }, R),
    ).toEqual({
      outcome: "failed",
      reason: "run_state_unknown",
    });
    for (const status of ["completed", "failed", "cancelled", "interrupted", "rolled_back"]) {
      expect(
        evaluateRunPrecondition({ activeRunId: null, latestRunId: R, latestRunStatus: status }, R).outcome,
      ).toBe("met");
    }
  });
});

describe("step verdicts from the journal", () => {
  it("maps journal states to completed, refused or uncertain", () => {
    expect(stepVerdict("completed")).toEqual({ verdict: "completed" });
    expect(
      stepVerdict("rejected", { closedBy: "thread.conditional-send", reason: "precondition_run_superseded" }),
    ).toEqual({ verdict: "refused", reason: "precondition_run_superseded" });
    expect(stepVerdict("rejected", { reason: "scope_denied" })).toEqual({
      verdict: "refused",
      reason: "dispatch_rejected",
    });
    expect(stepVerdict("failed")).toEqual({ verdict: "refused", reason: "dispatch_rejected" });
    expect(stepVerdict("preparing")).toEqual({ verdict: "uncertain", reason: "step_in_progress" });
    expect(stepVerdict("uncertain")).toEqual({ verdict: "uncertain", reason: "reconciliation_required" });
  });
});
