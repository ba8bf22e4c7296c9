/**
 * The journal side of a conditional send: what a step's record says,
 * and how a step is closed as "not sent". Step truth always comes from the step's own journal
 * record, never from what this process remembers.
 */

import type { ConnectedEnvironment } from "@t3-connector/core/environments";
import {
  CONDITIONAL_SEND_ACTION,
  type ConditionalSendStep,
  type ConditionalSendStepName,
  prepareAction,
} from "../actions/index.js";
import type { Journal, JournalRecord } from "../journal/index.js";
import { operationLockOf } from "./dispatcher.js";

/** A journal record's message starts with this when the conditional send closed the step itself. */
const CLOSED_MARKER = `[${CONDITIONAL_SEND_ACTION}:`;

/** How the conditional send closed a step: a failed precondition, or a failure of the request. */
export type ClosedAs = "precondition_failed" | "failed";

export interface StepTarget {
  readonly journal: Journal;
  readonly environmentId: string;
  readonly destination: string;
  readonly channel: string;
  readonly key: string;
  readonly step: ConditionalSendStep;
}

export type StepTruth =
  | { readonly kind: "none" }
  | { readonly kind: "completed"; readonly record: JournalRecord }
  | {
      readonly kind: "refused";
      readonly record: JournalRecord;
      readonly reason: string;
      /** Set when this engine closed it (the reason is then the conditional send's own). */
      readonly closedAs: ClosedAs | null;
    }
  | {
      readonly kind: "uncertain";
      readonly record: JournalRecord;
      readonly reason: "step_in_progress" | "reconciliation_required";
    };

export function truthOf(record: JournalRecord | undefined): StepTruth {
  if (record === undefined) return { kind: "none" };
  switch (record.state) {
    case "completed":
      return { kind: "completed", record };
    case "preparing":
      return { kind: "uncertain", record, reason: "step_in_progress" };
    case "uncertain":
      return { kind: "uncertain", record, reason: "reconciliation_required" };
    case "refused": {
      const message = record.error?.message ?? "";
      if (message.startsWith(CLOSED_MARKER)) {
        const end = message.indexOf("]");
        const [closedAs, reason] = message.slice(CLOSED_MARKER.length, end).split(":");
        if ((closedAs === "precondition_failed" || closedAs === "failed") && reason !== undefined) {
          return { kind: "refused", record, reason, closedAs };
        }
      }
      return { kind: "refused", record, reason: "dispatch_rejected", closedAs: null };
    }
  }
}

export async function readStep(target: StepTarget): Promise<StepTruth> {
  return truthOf(await target.journal.get(target.key));
}

/**
 * "Not sent" is only ever said after this: the step key is reserved (with the very input the
 * dispatcher would reserve, so a later dispatch of it replays the refusal) and recorded refused,
 * under the dispatcher's own per-operation lock so no dispatch of the step can run in between.
 * When the reservation loses, the other writer's record is the answer.
 */
export async function closeStep(target: StepTarget, closedAs: ClosedAs, reason: string): Promise<StepTruth> {
  return operationLockOf(target.journal).run(target.key, async () => {
    const prepared = prepareAction(target.step.action, target.step.input, target.key);
    const reservation = await target.journal.reserve({
      environmentId: target.environmentId,
      destination: target.destination,
      caller: target.channel,
      operationId: target.step.operationId,
      action: target.step.action,
      input: prepared.input,
    });
    // A `preparing` record found under the lock was left by a stopped process before any send.
    if (reservation.kind === "existing" && reservation.record.state !== "preparing") {
      return truthOf(reservation.record);
    }
    const record = await target.journal.refuse(target.key, {
      code: `guard_refused/${reason}`,
      message: `${CLOSED_MARKER}${closedAs}:${reason}] closed by the conditional send before anything was sent`,
    });
    return truthOf(record);
  });
}

export interface Delivery {
  readonly observed: boolean;
  readonly messageId: string | null;
  readonly runId: string | null;
  readonly runStatus: string | null;
  readonly deliveredAs: "started" | "queued_behind_active";
}

/**
 * Where the sent message went: the run whose `userMessageId` is the message's id. A message with
 * no run of its own yet, or whose run is still queued, waits behind an active run.
 */
export async function observeDelivery(
  environment: ConnectedEnvironment,
  threadId: string,
  messageId: string | null,
): Promise<Delivery> {
  if (messageId === null) {
    return { observed: false, messageId, runId: null, runStatus: null, deliveredAs: "queued_behind_active" };
  }
  const { projection } = await environment.http.getThread(threadId);
  const run = projection.runs.find((item) => item.userMessageId === messageId);
  if (run === undefined) {
    return { observed: false, messageId, runId: null, runStatus: null, deliveredAs: "queued_behind_active" };
  }
  const queued = run.status === "queued" || (run.queuePosition ?? null) !== null;
  return {
    observed: true,
    messageId,
    runId: run.id,
    runStatus: run.status,
    deliveredAs: queued ? "queued_behind_active" : "started",
  };
}

export function stepNamed(
  steps: readonly ConditionalSendStep[],
  name: ConditionalSendStepName,
): ConditionalSendStep | undefined {
  return steps.find((step) => step.step === name);
}
