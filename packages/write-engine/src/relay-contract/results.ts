/**
 * The relay's success answers: one schema per `op`, next to its request in requests.ts. The gate
 * builds each answer typed by these; the bridge parses every 200 answer with the schema of the op
 * it sent, so a gate and a bridge of different versions fail loudly (`relay_answer_invalid`)
 * instead of passing a missing field on to the client as `undefined`. A field a newer gate adds is
 * dropped by an older bridge, never refused; a field removed or retyped is refused. The answers
 * whose rows the bridge passes on whole (approval, lease, leased reads) keep their other fields.
 */
import { z } from "zod";
import {
  BATCH_VERB_NAMES,
  CONDITIONAL_SEND_STATES,
  type ConditionalSendStepName,
  RUNTIME_MODES,
} from "../actions/index.js";
import { JOURNAL_STATES } from "../journal/types.js";
import type { RelayOpName } from "./requests.js";

/** What T3 acknowledged: `{sequence}` for a command, `{threadId, resumed}` for a launch. */
const receipt = z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()]));
const journalError = z.object({ code: z.string(), message: z.string() });

export const environmentsResult = z.object({
  environments: z.array(z.object({ alias: z.string(), environmentId: z.string(), label: z.string() })),
});

const openLease = z.looseObject({
  active: z.literal(true),
  leaseId: z.string(),
  grantedAt: z.string(),
  expiresAt: z.string(),
  remainingMs: z.number(),
  scopeFingerprint: z.string(),
  environments: z.array(
    z.looseObject({
      alias: z.string(),
      environmentId: z.string(),
      projectCount: z.number(),
      actionCount: z.number(),
    }),
  ),
  writes: z.number(),
});
/** The open lease's summary, answered only to its holder; anyone else learns `{active: false}`. */
export const leaseResult = z.union([openLease, z.looseObject({ active: z.literal(false) })]);

/**
 * An open lease (with `requestId` and `decision` when a wait ended in an approval), or the request
 * still pending, denied or expired with its link; the secret only on the call that created it.
 */
export const requestApprovalResult = z.looseObject({
  active: z.boolean(),
  requestId: z.string().optional(),
  decision: z.string().optional(),
  leaseSecret: z.string().optional(),
});

/** The only success of a write: T3 acknowledged the one send (now, or replayed from the journal). */
export const dispatchResult = z.object({
  state: z.literal("completed"),
  /** The lease the write went under (the gate holds several at once); the bridge falls back to the one it sent. */
  leaseId: z.string().optional(),
  operationId: z.string(),
  environmentId: z.string(),
  action: z.string(),
  replayed: z.boolean(),
  /** Present (true) only when this call settled an uncertain write. */
  reconciled: z.literal(true).optional(),
  receipt,
  derivedIds: z.record(z.string(), z.string()),
  /** For a launch or delegated task: the mode its agent runs in (the lease's ceiling when omitted). */
  runtimeMode: z.enum(RUNTIME_MODES).optional(),
});

const STEP_NAMES = ["model-selection", "send"] as const satisfies readonly ConditionalSendStepName[];

export const deliveryResult = z.object({
  observed: z.boolean(),
  messageId: z.string().nullable(),
  runId: z.string().nullable(),
  runStatus: z.string().nullable(),
  deliveredAs: z.enum(["started", "queued_behind_active"]),
});

/**
 * Every state of a conditional send is an answer (only a bad request or a lease refusal is an error).
 * The bridge's tool answers this schema with each absent field as null (its output schema is derived from it).
 */
export const conditionalSendResult = z.object({
  state: z.enum(CONDITIONAL_SEND_STATES),
  operationId: z.string(),
  environmentId: z.string(),
  threadId: z.string(),
  afterRunId: z.string(),
  /** True when the gate read the answer back from its journal and nothing ran now. */
  replayed: z.boolean(),
  reason: z.string().optional(),
  failedStep: z.enum(STEP_NAMES).optional(),
  /** The step's own operationId: the one to reconcile when the state is `uncertain`. */
  failedOperationId: z.string().optional(),
  /** Whether the message may have reached T3; absent when the gate did not say. */
  sent: z.boolean().optional(),
  detail: z.string().optional(),
  delivery: deliveryResult.optional(),
  nextAction: z.string(),
});

const BATCH_ITEM_STATES = ["completed", "refused", "uncertain", "not_attempted"] as const;
/** A threads batch: each item's state, and where it stopped (ADR 0074). */
export const threadsBatchResult = z.object({
  state: z.enum(["completed", "stopped"]),
  batchId: z.string(),
  action: z.enum(BATCH_VERB_NAMES),
  environmentId: z.string(),
  items: z.array(
    z.object({
      index: z.number().int().min(0),
      threadId: z.string(),
      /** The item's own operationId: the one to reconcile when it is `uncertain`. */
      operationId: z.string(),
      state: z.enum(BATCH_ITEM_STATES),
      replayed: z.boolean(),
      code: z.string().optional(),
      message: z.string().optional(),
    }),
  ),
  summary: z.object(Object.fromEntries(BATCH_ITEM_STATES.map((state) => [state, z.number().int().min(0)]))),
  stoppedAt: z.number().int().min(0).optional(),
});

/** Ids, actions, states and error codes only: a record never crosses with an input or message text. */
export const uncertainWrite = z.object({
  key: z.string(),
  operationId: z.string(),
  environmentId: z.string(),
  action: z.string(),
  state: z.enum(JOURNAL_STATES),
  createdAt: z.number(),
  updatedAt: z.number(),
  error: journalError.nullable(),
});
export const listUncertainResult = z.object({ records: z.array(uncertainWrite) });

const observation = z.object({
  method: z.string(),
  found: z.boolean(),
  conclusive: z.boolean().optional(),
  reason: z.string().optional(),
  receipt: receipt.optional(),
});
const resend = z.object({ sent: z.boolean(), answer: z.string(), code: z.string().optional() });

/** One settlement attempt: the journal state after it, what T3 showed, what a resend answered. */
export const reconcileResult = z.object({
  key: z.string(),
  operationId: z.string(),
  environmentId: z.string(),
  action: z.string(),
  state: z.enum(JOURNAL_STATES),
  settled: z.boolean(),
  observation: observation.nullable(),
  observedAt: z.number().nullable(),
  resend: resend.nullable(),
  /** The record's receipt once completed, and its error once refused (or its last one while open). */
  receipt: receipt.nullable(),
  error: journalError.nullable(),
});

/**
 * A leased read: the environment it read, then the rows (`projects`, `threads`, or `thread` with
 * `detail`) the bridge's read tool of the same name shapes and its output schema checks.
 */
export const leasedReadResult = z.looseObject({ environment: z.string(), environmentId: z.string() });

const preflightReason = z.object({ code: z.string(), reason: z.string(), message: z.string() });
/** Would the launch or message pass now (ADR 0075): reasons with the send's codes, duplicates, a recommendation. */
export const preflightResult = z.object({
  action: z.string(),
  environment: z.string().nullable(),
  wouldPass: z.boolean(),
  summary: z.string(),
  reasons: z.array(preflightReason),
  ceiling: z.enum(RUNTIME_MODES),
  duplicates: z.object({
    checked: z.boolean(),
    threads: z.array(
      z.object({
        threadId: z.string(),
        title: z.string(),
        matches: z.array(z.enum(["branch", "worktree", "title"])),
      }),
    ),
  }),
  recommendation: z.object({ environment: z.string(), reason: z.string() }).nullable(),
  considered: z.array(
    z.object({
      environment: z.string(),
      environmentId: z.string(),
      wouldPass: z.boolean(),
      reasons: z.array(preflightReason),
    }),
  ),
});

/** Whether the lease was open (and is now ended); ending a closed one is no error. */
export const endLeaseResult = z.object({ ended: z.boolean() });
/** How many pending requests of the holder were withdrawn (0 for a secret that holds none). */
export const withdrawRequestsResult = z.object({ withdrawn: z.number().int().min(0) });

/** The feed's entries after the cursor asked for, and the cursor to ask with next. */
export const approvalEventsResult = z.object({
  entries: z.array(
    z.looseObject({
      seq: z.number(),
      type: z.enum(["approval.requested", "approval.decided"]),
      at: z.string(),
      request: z.looseObject({ requestId: z.string(), approvalUrl: z.string() }),
      decision: z.string().optional(),
    }),
  ),
  cursor: z.number(),
});

export const RELAY_RESULTS = {
  environments: environmentsResult,
  lease: leaseResult,
  request_approval: requestApprovalResult,
  dispatch: dispatchResult,
  conditional_send: conditionalSendResult,
  threads_batch: threadsBatchResult,
  preflight: preflightResult,
  list_uncertain: listUncertainResult,
  reconcile: reconcileResult,
  leased_read: leasedReadResult,
  end_lease: endLeaseResult,
  withdraw_requests: withdrawRequestsResult,
  approval_events: approvalEventsResult,
} as const satisfies Record<RelayOpName, z.ZodType>;

/** The success answer of `op`, as the gate builds it (fields it may leave out are optional). */
export type RelayResultOf<Op extends RelayOpName> = z.input<(typeof RELAY_RESULTS)[Op]>;
/** The success answer of `op`, as the bridge reads it after parsing. */
export type RelayParsedResultOf<Op extends RelayOpName> = z.output<(typeof RELAY_RESULTS)[Op]>;
export type DispatchResult = RelayParsedResultOf<"dispatch">;
export type ReconcileResult = RelayParsedResultOf<"reconcile">;
export type ConditionalSendAnswer = RelayParsedResultOf<"conditional_send">;
export type ListUncertainResult = RelayParsedResultOf<"list_uncertain">;

export type RelayResultCheck<Op extends RelayOpName> =
  | { readonly ok: true; readonly value: RelayParsedResultOf<Op> }
  /** Where the answer departs from the contract (`path: message`), for the error's text. */
  | { readonly ok: false; readonly problem: string };

/** Checks a 200 answer against the contract of the op that was sent. */
export function parseRelayResult<Op extends RelayOpName>(op: Op, body: unknown): RelayResultCheck<Op> {
  const parsed = RELAY_RESULTS[op].safeParse(body);
  if (parsed.success) return { ok: true, value: parsed.data as RelayParsedResultOf<Op> };
  const first = parsed.error.issues[0];
  const where = first === undefined || first.path.length === 0 ? "answer" : first.path.join(".");
  return { ok: false, problem: `${where}: ${first?.message ?? "does not match"}` };
}
