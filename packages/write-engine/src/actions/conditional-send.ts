/**
 * The conditional send, as data the gate runs: "when run R ends,
 * optionally switch the model, then send this message". It is a composite tool, not one of the
 * 42 actions: its steps are ordinary thread.model-selection.set and thread.send writes, each
 * journaled under its own operationId, and the lease must grant those actions.
 */

import { TERMINAL_RUN_STATUSES } from "@t3-connector/core";
import { z } from "zod";
import { idString, MAX_ID_CHARS, messageText, modelSelection } from "./fields.js";
import { REQUEST_ID_GUARD } from "./guards.js";
import type { ThreadSendInput } from "./launch-send.js";

export const CONDITIONAL_SEND_ACTION = "thread.conditional-send";
export const CONDITIONAL_SEND_MANIFEST_KIND = "conditional-send-v1";

export const CONDITIONAL_SEND_TIMING = {
  /** Upper bound of `waitMs`: how long one call may wait for run R to end. */
  maxWaitMs: 10_000,
  preconditionPollMs: 500,
  /** After the model step, how long to wait for the thread to show the new model. */
  modelApplyWaitMs: 2_000,
  modelApplyPollMs: 250,
} as const;

export const CONDITIONAL_SEND_STEP_SUFFIX = {
  "model-selection": ":model-selection",
  send: ":send",
} as const;
export type ConditionalSendStepName = keyof typeof CONDITIONAL_SEND_STEP_SUFFIX;

/** The longest suffix must still fit in a 1024-character operationId. */
const MAX_CLIENT_REQUEST_ID = MAX_ID_CHARS - CONDITIONAL_SEND_STEP_SUFFIX["model-selection"].length;

export const conditionalSendInput = z.strictObject({
  threadId: idString,
  /** Must equal the envelope's operationId (request_id_mismatch). */
  clientRequestId: z.string().trim().min(1).max(MAX_CLIENT_REQUEST_ID),
  /** The run that must have ended (read it from the thread's active run). */
  afterRunId: idString,
  modelSelection: modelSelection.optional(),
  text: messageText,
  waitMs: z.number().int().min(0).max(CONDITIONAL_SEND_TIMING.maxWaitMs).default(0),
});
export type ConditionalSendInput = z.output<typeof conditionalSendInput>;

/** The composite request as the catalogue's entries are: its words for people, its schema, its checks. */
export const CONDITIONAL_SEND = {
  action: CONDITIONAL_SEND_ACTION,
  label: "Send after run ends",
  description:
    "When afterRunId has ended and no other run is active, optionally set the model, then send text with start_immediately. Never steers, queues or restarts.",
  inputSchema: conditionalSendInput,
  /** Checked on the request itself; each step then runs its own action's guards. */
  guards: [REQUEST_ID_GUARD],
} as const;

export interface ConditionalSendStep {
  readonly step: ConditionalSendStepName;
  readonly action: "thread.model-selection.set" | "thread.send";
  /** The step's own idempotency key: `<clientRequestId><suffix>`. */
  readonly operationId: string;
  /** The step action's raw input, validated again by that action's schema. */
  readonly input: Record<string, unknown>;
}

export function stepOperationId(clientRequestId: string, step: ConditionalSendStepName): string {
  return `${clientRequestId}${CONDITIONAL_SEND_STEP_SUFFIX[step]}`;
}

/** The steps of one request, in order; the model step exists only with a modelSelection. */
export function conditionalSendSteps(input: ConditionalSendInput): readonly ConditionalSendStep[] {
  const steps: ConditionalSendStep[] = [];
  if (input.modelSelection !== undefined) {
    steps.push({
      step: "model-selection",
      action: "thread.model-selection.set",
      operationId: stepOperationId(input.clientRequestId, "model-selection"),
      input: { threadId: input.threadId, modelSelection: input.modelSelection },
    });
  }
  const sendOperationId = stepOperationId(input.clientRequestId, "send");
  const send: ThreadSendInput = {
    threadId: input.threadId,
    clientRequestId: sendOperationId,
    text: input.text,
    delivery: "start_immediately",
  };
  steps.push({ step: "send", action: "thread.send", operationId: sendOperationId, input: { ...send } });
  return steps;
}

/** Lease actions the request needs; no new action is ever consented for it. */
export function conditionalSendRequiredActions(input: ConditionalSendInput): readonly string[] {
  return input.modelSelection === undefined ? ["thread.send"] : ["thread.send", "thread.model-selection.set"];
}

export const CONDITIONAL_SEND_STATES = [
  "precondition_pending",
  "precondition_failed",
  "failed",
  "uncertain",
  "completed",
] as const;
export type ConditionalSendState = (typeof CONDITIONAL_SEND_STATES)[number];

/** Final answers are replayed from the journal; the others are evaluated again on retry. */
export const CONDITIONAL_SEND_FINAL_STATES: readonly ConditionalSendState[] = [
  "precondition_failed",
  "failed",
  "completed",
];

export const PRECONDITION_FAILURES = [
  "other_run_active",
  "run_superseded",
  "run_unknown",
  "run_state_unknown",
] as const;
export type PreconditionFailure = (typeof PRECONDITION_FAILURES)[number];
export const UNCERTAIN_REASONS = [
  "step_in_progress",
  "reconciliation_required",
  "step_changed_after_result",
] as const;

/** What the precondition reads from a fresh shell row of the thread. */
export interface RunPreconditionView {
  readonly activeRunId: string | null;
  readonly latestRunId: string | null;
  /** Status of the latest run, when known. */
  readonly latestRunStatus: string | null;
}

export type PreconditionOutcome =
  | { readonly outcome: "pending"; readonly reason: "run_active" }
  | { readonly outcome: "failed"; readonly reason: PreconditionFailure }
  | { readonly outcome: "met"; readonly reason: "run_ended" };

/** Evaluated before the first step and again right before the send. */
export function evaluateRunPrecondition(view: RunPreconditionView, afterRunId: string): PreconditionOutcome {
  if (view.activeRunId === afterRunId) return { outcome: "pending", reason: "run_active" };
  if (view.activeRunId !== null) return { outcome: "failed", reason: "other_run_active" };
  if (view.latestRunId === null) return { outcome: "failed", reason: "run_unknown" };
  if (view.latestRunId !== afterRunId) return { outcome: "failed", reason: "run_superseded" };
  const terminal = (TERMINAL_RUN_STATUSES as readonly string[]).includes(view.latestRunStatus ?? "");
  if (!terminal) return { outcome: "failed", reason: "run_state_unknown" };
  return { outcome: "met", reason: "run_ended" };
}

/** A step's journal state → the request's view of it (step truth always comes from the journal). */
export type StepJournalState = "preparing" | "uncertain" | "completed" | "rejected" | "failed";
export type StepVerdict =
  | { readonly verdict: "completed" }
  | { readonly verdict: "refused"; readonly reason: string }
  | { readonly verdict: "uncertain"; readonly reason: "step_in_progress" | "reconciliation_required" };

export function stepVerdict(
  state: StepJournalState,
  record: { closedBy?: string; reason?: string } = {},
): StepVerdict {
  switch (state) {
    case "completed":
      return { verdict: "completed" };
    case "rejected":
      if (record.closedBy === CONDITIONAL_SEND_ACTION && record.reason !== undefined) {
        return { verdict: "refused", reason: record.reason };
      }
      return { verdict: "refused", reason: "dispatch_rejected" };
    case "failed":
      return { verdict: "refused", reason: "dispatch_rejected" };
    case "preparing":
      return { verdict: "uncertain", reason: "step_in_progress" };
    case "uncertain":
      return { verdict: "uncertain", reason: "reconciliation_required" };
  }
}
