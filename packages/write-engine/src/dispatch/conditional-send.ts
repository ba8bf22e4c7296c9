/**
 * "When run R ends, optionally switch the model, then send", run through
 * the ordinary write engine. Each step is its own journaled operation (`<id>:model-selection`,
 * `<id>:send`), so each is idempotent and never sent twice; the precondition is read fresh before
 * the first step and again right before the send.
 *
 * There is no separate manifest record: the steps' journal records are the durable truth, so a
 * final answer is replayed by reading them back, and `precondition_pending` (nothing recorded) is
 * simply evaluated again on the next call.
 */

import type { Clock } from "@t3-connector/core";
import { ConnectorError, isConnectorError } from "@t3-connector/core";
import type { ConnectedEnvironment, EnvironmentRegistry } from "@t3-connector/core/environments";
import {
  type ActionId,
  CONDITIONAL_SEND,
  CONDITIONAL_SEND_TIMING,
  type ConditionalSendInput,
  type ConditionalSendState,
  type ConditionalSendStep,
  type ConditionalSendStepName,
  checkLocalGuards,
  conditionalSendInput,
  conditionalSendRequiredActions,
  conditionalSendSteps,
  drivenThreadMode,
  evaluateRunPrecondition,
  type PreconditionOutcome,
} from "../actions/index.js";
import type { Journal } from "../journal/index.js";
import {
  closeStep,
  type Delivery,
  observeDelivery,
  readStep,
  type StepTarget,
  type StepTruth,
  stepNamed,
} from "./conditional-send-steps.js";
import { destinationOf, withDetails } from "./dispatcher.js";
import type { Dispatcher } from "./dispatcher-contract.js";
import { type FreshThread, readFreshThreads } from "./fresh-shell.js";
import { KeyedLock } from "./keyed-lock.js";
import type { LeaseRule } from "./lease-rule.js";
import { dispatchFailureOf } from "./outcome.js";
import type { LeaseFacts, LeaseStage } from "./types.js";

export interface ConditionalSendDeps {
  /** The engine every step goes through (same journal and channel as below). */
  readonly dispatcher: Dispatcher;
  readonly journal: Journal;
  readonly registry: EnvironmentRegistry;
  /** The dispatcher's caller identity (part of each step's journal key). */
  readonly channel: string;
  readonly clock: Clock;
  /** The dispatcher's lease rule (a lease whose send was lost sends nothing more, steps included). */
  readonly leases: LeaseRule;
  /** Waits between polls; default a timer. */
  readonly sleep?: (ms: number) => Promise<void>;
  /** Runs after the model step, right before the re-check (a seam for tests and audits). */
  readonly beforeSendCheck?: () => Promise<void>;
}

export interface ConditionalSendRequest {
  readonly leaseId: string;
  /** The named lease's facts as the gate holds them now (null: no such lease is open); every step carries them. */
  readonly lease: LeaseFacts | null;
  readonly environment: string;
  readonly operationId: string;
  readonly input: unknown;
}

export interface ConditionalSendResult {
  readonly state: ConditionalSendState;
  readonly operationId: string;
  readonly environmentId: string;
  readonly threadId: string;
  readonly afterRunId: string;
  /** True when the answer was read back from the steps' journal records and nothing ran now. */
  readonly replayed: boolean;
  readonly reason?: string;
  readonly failedStep?: ConditionalSendStepName;
  readonly failedOperationId?: string;
  /** Whether the message may have reached T3 (false only once the send step is durably refused). */
  readonly sent?: boolean;
  readonly detail?: string;
  readonly delivery?: Delivery;
  readonly nextAction: string;
  /** For the gate, never the client: a step's send was lost, so the lease must end (ADR 0063). */
  readonly endsLease?: "uncertain_send";
}

const NEXT_ACTION: Record<ConditionalSendState, string> = {
  precondition_pending:
    "Run afterRunId is still active; nothing was sent. Wait for it (t3_aguardar_thread), then call again with the same operationId.",
  precondition_failed: "Nothing was sent. Read the thread again and decide with a new operationId.",
  failed: "The request failed; see failedStep and reason. Retrying the same operationId replays this answer.",
  uncertain:
    "A step may or may not have reached T3 and could not be settled yet. Do not retry with a new operationId: call again with the same operationId (it settles the step: T3 applies it at most once), or reconcile failedOperationId (t3_reconciliar_escrita).",
  completed: "The message was sent once; delivery says whether it started a run or queued.",
};

/** One execution per request at a time; a concurrent duplicate waits and then replays. */
const REQUEST_LOCKS = new WeakMap<Journal, KeyedLock>();

function requestLockOf(journal: Journal): KeyedLock {
  let lock = REQUEST_LOCKS.get(journal);
  if (lock === undefined) {
    lock = new KeyedLock();
    REQUEST_LOCKS.set(journal, lock);
  }
  return lock;
}

const timerSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

interface Run {
  readonly deps: ConditionalSendDeps;
  readonly request: ConditionalSendRequest;
  readonly input: ConditionalSendInput;
  readonly environment: ConnectedEnvironment;
  readonly environmentId: string;
  readonly model: StepTarget | undefined;
  readonly send: StepTarget;
  readonly sleep: (ms: number) => Promise<void>;
  /** Set when a step's send was lost: the answer asks the gate to end the lease. */
  endsLease?: true;
}

export async function conditionalSend(
  deps: ConditionalSendDeps,
  request: ConditionalSendRequest,
): Promise<ConditionalSendResult> {
  const parsed = conditionalSendInput.safeParse(request.input);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    throw new ConnectorError(
      "invalid_input",
      first === undefined ? "invalid input" : `${first.path.join(".") || "input"}: ${first.message}`,
      { details: { recorded: false } },
    );
  }
  const input = parsed.data;
  const mismatch = checkLocalGuards(CONDITIONAL_SEND.guards, input, {
    operationId: request.operationId,
    thread: () => undefined,
    approvedWorkspaceRoots: [],
  });
  if (mismatch !== null) throw withDetails(mismatch, { recorded: false });

  const handle = deps.registry.resolve(request.environment);
  const environmentId = handle.environmentId;
  const targetOf = (step: ConditionalSendStep): StepTarget => ({
    journal: deps.journal,
    environmentId,
    destination: destinationOf(environmentId),
    channel: deps.channel,
    key: deps.dispatcher.operationKey(environmentId, step.operationId),
    step,
  });
  const steps = conditionalSendSteps(input);
  const modelStep = stepNamed(steps, "model-selection");
  const sendStep = stepNamed(steps, "send");
  if (sendStep === undefined)
    throw new ConnectorError("internal", "a conditional send always has a send step");
  const send = targetOf(sendStep);
  admit(deps, request, input, environmentId, "admission", []);
  return requestLockOf(deps.journal).run(send.key, async () => {
    const run: Run = {
      deps,
      request,
      input,
      environment: await handle.connect(),
      environmentId,
      model: modelStep === undefined ? undefined : targetOf(modelStep),
      send,
      sleep: deps.sleep ?? timerSleep,
    };
    return execute(run);
  });
}

/**
 * A lease refusal throws before anything is recorded (and says nothing about the steps), exactly
 * as the dispatcher's own admission and scope checks do; each step is then checked again by it.
 */
function admit(
  deps: ConditionalSendDeps,
  request: ConditionalSendRequest,
  input: ConditionalSendInput,
  environmentId: string,
  stage: Exclude<LeaseStage, "send">,
  projectIds: readonly string[],
  thread?: FreshThread,
): void {
  for (const action of conditionalSendRequiredActions(input)) {
    // The message step drives the thread's agent in its current mode: the ceiling must cover it
    // before the model step is sent, or the send would be refused with the model already changed.
    const threadMode = drivenThreadMode(action, undefined, thread === undefined ? [] : [thread]);
    const verdict = deps.leases.verdict(request.lease, request.leaseId, {
      stage,
      environmentId,
      destination: destinationOf(environmentId),
      action: action as ActionId,
      projectIds,
      ...(threadMode === undefined ? {} : { threadRuntimeMode: threadMode }),
    });
    if (!verdict.ok) {
      throw new ConnectorError(verdict.code, verdict.message, {
        details: { ...verdict.details, reason: verdict.code, stage, recorded: false },
      });
    }
  }
}

async function execute(run: Run): Promise<ConditionalSendResult> {
  const thread = await freshThread(run);
  admit(run.deps, run.request, run.input, run.environmentId, "scope", [thread.projectId], thread);
  const replay = await replayFromJournal(run);
  if (replay !== null) return replay;

  const first = await awaitPrecondition(run);
  if (first.outcome === "pending")
    return answer(run, "precondition_pending", false, { reason: first.reason });
  if (first.outcome === "failed") {
    return fromClosed(run, await closeStep(run.send, "precondition_failed", first.reason), false);
  }

  if (run.model !== undefined) {
    const model = await dispatchStep(run, run.model);
    if (model.kind !== "completed") return fromStep(run, run.model, model, false);
    if (!(await modelApplied(run))) {
      return fromClosed(run, await closeStep(run.send, "failed", "model_selection_not_applied"), false);
    }
  }

  await run.deps.beforeSendCheck?.();
  const again = evaluateRunPrecondition(await preconditionView(run), run.input.afterRunId);
  if (again.outcome !== "met") {
    return fromClosed(run, await closeStep(run.send, "failed", `precondition_${again.reason}`), false);
  }
  return fromStep(run, run.send, await dispatchStep(run, run.send), false);
}

/**
 * Final answers come back from the journal; nothing recorded means start. A step left uncertain is
 * settled the way the dispatcher settles any repeated uncertain write (read T3, then the same
 * command again under the same ids); a settled model step lets the request go on.
 */
async function replayFromJournal(run: Run): Promise<ConditionalSendResult | null> {
  const send = await settleIfUncertain(run, run.send, await readStep(run.send));
  if (send.kind !== "none") return fromStep(run, run.send, send, true);
  if (run.model === undefined) return null;
  const model = await settleIfUncertain(run, run.model, await readStep(run.model));
  if (model.kind === "refused" || model.kind === "uncertain") return fromStep(run, run.model, model, true);
  return null;
}

function settleIfUncertain(run: Run, target: StepTarget, truth: StepTruth): Promise<StepTruth> | StepTruth {
  if (truth.kind !== "uncertain" || truth.reason !== "reconciliation_required") return truth;
  return dispatchStep(run, target);
}

async function dispatchStep(run: Run, target: StepTarget): Promise<StepTruth> {
  try {
    await run.deps.dispatcher.dispatch({
      leaseId: run.request.leaseId,
      lease: run.request.lease,
      environment: run.environmentId,
      operationId: target.step.operationId,
      action: target.step.action,
      input: target.step.input,
    });
  } catch (error) {
    const truth = await readStep(target);
    // A refusal that left no record (lease, scope, a bad input) fails the call and says nothing
    // about the step.
    if (truth.kind === "none" || !isConnectorError(error)) throw error;
    if (dispatchFailureOf(error).endsLease !== undefined) run.endsLease = true;
    return truth;
  }
  return readStep(target);
}

/** Codes of a refusal T3 itself answered (the frame reached it, nothing was applied). */
const T3_REFUSAL_CODES = [
  "t3_refused",
  "action_unsupported",
  "subagent_thread_read_only",
  "above_mode_limit",
];

async function preconditionView(run: Run) {
  const thread = await freshThread(run);
  return {
    activeRunId: thread.activeRunId ?? null,
    latestRunId: thread.latestRunId ?? null,
    latestRunStatus: thread.status,
  };
}

async function freshThread(run: Run): Promise<FreshThread> {
  const fresh = await readFreshThreads(run.environment, [run.input.threadId]);
  const thread = fresh.found.get(run.input.threadId);
  if (thread === undefined) {
    throw new ConnectorError("thread_not_found", `thread ${run.input.threadId} does not exist`, {
      details: { recorded: false },
    });
  }
  return thread;
}

/** Evaluates, then polls while run R is still active and `waitMs` allows. */
async function awaitPrecondition(run: Run): Promise<PreconditionOutcome> {
  const deadline = run.deps.clock.monotonic() + run.input.waitMs;
  for (;;) {
    const outcome = evaluateRunPrecondition(await preconditionView(run), run.input.afterRunId);
    const left = deadline - run.deps.clock.monotonic();
    if (outcome.outcome !== "pending" || left <= 0) return outcome;
    await run.sleep(Math.min(CONDITIONAL_SEND_TIMING.preconditionPollMs, left));
  }
}

/** After the model step, the thread must show the model before anything is sent with it. */
async function modelApplied(run: Run): Promise<boolean> {
  const wanted = run.input.modelSelection;
  if (wanted === undefined) return true;
  const deadline = run.deps.clock.monotonic() + CONDITIONAL_SEND_TIMING.modelApplyWaitMs;
  for (;;) {
    const shown = (await freshThread(run)).modelSelection;
    if (shown?.model === wanted.model && (shown.instanceId ?? null) === (wanted.instanceId ?? null))
      return true;
    const left = deadline - run.deps.clock.monotonic();
    if (left <= 0) return false;
    await run.sleep(Math.min(CONDITIONAL_SEND_TIMING.modelApplyPollMs, left));
  }
}

function fromClosed(run: Run, truth: StepTruth, replayed: boolean): Promise<ConditionalSendResult> {
  return fromStep(run, run.send, truth, replayed);
}

async function fromStep(
  run: Run,
  target: StepTarget,
  truth: StepTruth,
  replayed: boolean,
): Promise<ConditionalSendResult> {
  const failed = { failedStep: target.step.step, failedOperationId: target.step.operationId };
  switch (truth.kind) {
    case "none":
      throw new ConnectorError("internal", "a conditional send step has no record after it ran");
    case "completed": {
      if (target.step.step !== "send") {
        throw new ConnectorError("internal", "only a completed send completes a conditional send");
      }
      const messageId = truth.record.derivedIds?.messageId ?? null;
      const delivery = await observeDelivery(run.environment, run.input.threadId, messageId);
      return answer(run, "completed", replayed, { sent: true, delivery });
    }
    case "uncertain":
      return answer(run, "uncertain", replayed, { ...failed, reason: truth.reason });
    case "refused": {
      if (truth.closedAs === "precondition_failed") {
        return answer(run, "precondition_failed", replayed, { reason: truth.reason, sent: false });
      }
      const code = truth.record.error?.code ?? "";
      const sentByT3 =
        truth.closedAs === null && T3_REFUSAL_CODES.some((refusal) => code.startsWith(refusal));
      return answer(run, "failed", replayed, {
        ...failed,
        reason: truth.reason,
        // T3 itself refused: the frame reached it but was not applied.
        sent: sentByT3,
        ...(truth.closedAs === null && truth.record.error !== null
          ? { detail: truth.record.error.code }
          : {}),
      });
    }
  }
}

function answer(
  run: Run,
  state: ConditionalSendState,
  replayed: boolean,
  extra: Partial<ConditionalSendResult>,
): ConditionalSendResult {
  return {
    state,
    operationId: run.request.operationId,
    environmentId: run.environmentId,
    threadId: run.input.threadId,
    afterRunId: run.input.afterRunId,
    replayed,
    ...extra,
    nextAction: NEXT_ACTION[state],
    ...(run.endsLease === true ? { endsLease: "uncertain_send" as const } : {}),
  };
}
