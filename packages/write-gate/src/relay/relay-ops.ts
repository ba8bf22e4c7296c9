/**
 * The relay ops that touch the lease, the journal or the audit log. Each write goes to the engine
 * with the facts of the lease it names (the engine decides every rule, ADR 0063); what its outcome
 * says the gate must do — end the lease after a lost send, admit a thread the write launched,
 * list the write, audit it — is done here. Every write and every reconciliation is audited (ids,
 * codes and states only) after its outcome is known; a failed audit append closes every lease
 * through the log's own failure hook.
 */

import { type Clock, ConnectorError } from "@t3-connector/core";
import type { EnvironmentRegistry } from "@t3-connector/core/environments";
import {
  type ConditionalSendRequest,
  type ConditionalSendResult,
  type DispatchOutcome,
  dispatchFailureOf,
  type JournalRecord,
  type ReconcileOutcome,
  type WriteEngine,
} from "@t3-connector/write-engine/engine";
import type {
  ConditionalSendOp,
  DispatchOp,
  ReconcileOp,
  RelayResultOf,
  RequestApprovalOp,
  ThreadsBatchOp,
} from "@t3-connector/write-engine/relay-contract";
import type { ApprovalFeed } from "../approval/approval-feed.js";
import { type AuditLog, reconciledEvent } from "../audit/index.js";
import type { ApprovalAsk, ApprovalDesk, LeaseKeeper, LeaseWrite } from "../contract.js";
import { auditCodeOf } from "./errors.js";
import type { OperationOwners } from "./operation-owners.js";
import type { GatePreflight } from "./preflight-op.js";

/** What the ops reach: everything the relay holds but its capability. */
export interface RelayOpDeps {
  readonly registry: EnvironmentRegistry;
  readonly dispatcher: Pick<WriteEngine, "dispatchOutcome" | "reconcile" | "operationKey">;
  /** The conditional send over the same dispatcher and journal; without it the op is unavailable. */
  readonly conditionalSend?: (request: ConditionalSendRequest) => Promise<ConditionalSendResult>;
  /** The threads batch over the same engine; without it the op is unavailable. */
  readonly threadsBatch?: WriteEngine["threadsBatch"];
  /** Would a launch or message pass now (ADR 0075); without it the op is unavailable. */
  readonly preflight?: GatePreflight;
  /** The journal's uncertain records; without it the op is unavailable. */
  readonly listUncertain?: () => Promise<readonly JournalRecord[]>;
  readonly lease: LeaseKeeper;
  readonly approvals: ApprovalDesk;
  readonly audit: AuditLog;
  readonly clock: Clock;
  /** The approval requests and decisions for the events service (ADR 0051); without it the op is unavailable. */
  readonly approvalFeed?: ApprovalFeed;
  /** Whose write each operation of this boot is: a receipt answers only its holder (ADR 0040). */
  readonly owners?: OperationOwners;
}

/** The status answer of one lease, naming it (`leaseId`); `{active: false}` once it closed. */
export function leaseSummary(keeper: LeaseKeeper, leaseId: string): RelayResultOf<"lease"> {
  const lease = keeper.get(leaseId);
  if (lease === null) return { active: false };
  return {
    active: true,
    leaseId: lease.leaseId,
    grantedAt: lease.grantedAt,
    expiresAt: lease.expiresAt,
    remainingMs: keeper.remainingMs(leaseId),
    scopeFingerprint: lease.scopeFingerprint,
    runtimeCeiling: lease.scope.runtimeMode,
    environments: lease.scope.environments.map((grant) => ({
      alias: grant.alias,
      environmentId: grant.environmentId,
      projectCount: grant.projects.length,
      actionCount: grant.actions.length,
    })),
    writes: keeper.writes(leaseId).length,
  };
}

/**
 * An active lease is answered with its summary: a request never renews or widens a lease. With
 * `requestId` the call creates nothing and waits on that request; with `waitMs` the answer comes
 * as soon as the human decides (or with `pending` when the wait runs out).
 */
export async function requestApproval(
  op: RequestApprovalOp,
  deps: RelayOpDeps,
): Promise<RelayResultOf<"request_approval">> {
  if (op.requestId !== undefined) return decided(op.requestId, op.waitMs ?? 0, deps, op.leaseSecret);
  // A lease answers only its holder; any other client gets a request of its own (ADR 0022, 0028).
  const held = deps.lease.heldLease(op.leaseSecret);
  // The holder asking with nothing proposed gets its lease; asking for something is a new request,
  // validated like any other, whose approval replaces the holder's lease (ADR 0022).
  if (held !== null && !proposesAnything(op)) return leaseSummary(deps.lease, held.leaseId);
  // Asking again with nothing proposed while its request is pending answers that request: one
  // request per ask, however often the client calls (ADR 0040).
  const waiting = proposesAnything(op) ? null : deps.approvals.pendingHeldBy(op.leaseSecret);
  if (waiting !== null) {
    if (op.waitMs === undefined || op.waitMs === 0) return { active: false, ...waiting, decision: "pending" };
    return { ...waiting, ...(await decided(waiting.requestId, op.waitMs, deps, op.leaseSecret)) };
  }
  const ask = { ...askOf(op), ...(op.leaseSecret === undefined ? {} : { holderSecret: op.leaseSecret }) };
  const link = await deps.approvals.request(held !== null ? { ...ask, replaces: held.leaseId } : ask);
  await deps.audit.append({
    event: "approval_requested",
    requestId: link.requestId,
    covered: link.covered.map((grant) => grant.environmentId),
    leftOut: link.leftOut.map((left) => ({ environmentId: left.environmentId, reason: left.reason })),
  });
  if (op.waitMs === undefined || op.waitMs === 0) return { active: false, ...link, decision: "pending" };
  const answer = await decided(link.requestId, op.waitMs, deps, link.leaseSecret ?? op.leaseSecret);
  // The secret goes back on the creating call only, whatever its wait ended with.
  const secret = link.leaseSecret === undefined ? {} : { leaseSecret: link.leaseSecret };
  return answer.active === true ? { ...answer, ...secret } : { ...link, ...answer };
}

/**
 * A call naming an open lease it does not hold (another client's leaseId) is refused like a closed
 * lease, before anything is read, journaled or sent.
 */
export function refuseForeignLease(keeper: LeaseKeeper, leaseId: string, secret: string | undefined): void {
  if (keeper.get(leaseId) === null) return; // the dispatcher answers lease_closed itself
  if (!keeper.heldBy(leaseId, secret)) {
    throw new ConnectorError(
      "lease_closed",
      "this lease was approved for another client, or for an earlier run of this bridge (a lease " +
        "belongs to the bridge process that asked for it, and a restarted bridge starts without one): " +
        "call t3_pedir_aprovacao {} to ask for your own",
      { details: { reason: "lease_not_held", recorded: false } },
    );
  }
}

function proposesAnything(op: RequestApprovalOp): boolean {
  return (
    ["environments", "projects", "actions", "threads", "projectWrites", "runtimeCeiling"] as const
  ).some((key) => op[key] !== undefined);
}

/** The ask as the desk takes it: only the fields the client gave. */
function askOf(op: RequestApprovalOp): ApprovalAsk {
  const ask: { -readonly [K in keyof ApprovalAsk]: ApprovalAsk[K] } = {};
  for (const key of [
    "environments",
    "projects",
    "actions",
    "threads",
    "projectWrites",
    "runtimeCeiling",
    "purpose",
    "bridge",
  ] as const) {
    const value = op[key];
    if (value !== undefined) (ask as Record<string, unknown>)[key] = value;
  }
  if (op.client !== undefined) {
    ask.client = {
      name: op.client.name,
      ...(op.client.version === undefined ? {} : { version: op.client.version }),
      ...(op.client.signedInAt === undefined ? {} : { signedInAt: op.client.signedInAt }),
    };
  }
  return ask;
}

/**
 * Waits on one request; an approval answers the lease it opened to its holder only (anyone else
 * presenting the request id learns that it was approved, never the lease id), anything else the
 * decision.
 */
async function decided(
  requestId: string,
  waitMs: number,
  deps: RelayOpDeps,
  secret: string | undefined,
): Promise<RelayResultOf<"request_approval">> {
  const decision = await deps.approvals.wait(requestId, waitMs);
  if (decision.outcome === "approved") {
    if (!deps.lease.heldBy(decision.lease.leaseId, secret)) {
      return { active: false, requestId, decision: "approved" };
    }
    return { ...leaseSummary(deps.lease, decision.lease.leaseId), requestId, decision: "approved" };
  }
  const link = decision.outcome === "pending" ? deps.approvals.link(requestId) : null;
  return { active: false, requestId, ...(link ?? {}), decision: decision.outcome };
}

export async function dispatchOp(op: DispatchOp, deps: RelayOpDeps): Promise<RelayResultOf<"dispatch">> {
  const outcome = await dispatchRecorded(op, deps);
  if (outcome.state !== "completed") throw outcome.error;
  return {
    state: outcome.state,
    leaseId: op.leaseId,
    operationId: outcome.operationId,
    environmentId: outcome.environmentId,
    action: outcome.action,
    replayed: outcome.replayed,
    ...(outcome.reconciled === true ? { reconciled: true } : {}),
    receipt: outcome.receipt,
    derivedIds: outcome.derivedIds,
    ...(outcome.runtimeMode === undefined ? {} : { runtimeMode: outcome.runtimeMode }),
  };
}

/**
 * One write, as the gate makes every one: the holder's claim on the operationId, the engine's
 * dispatch, then the page's row, the launched thread, the lease a lost send ends, and the audit
 * line. A single write and each item of a threads batch go through here.
 */
async function dispatchRecorded(op: DispatchOp, deps: RelayOpDeps): Promise<DispatchOutcome> {
  const base = { leaseId: op.leaseId, action: op.action, operationId: op.operationId };
  let outcome: DispatchOutcome;
  try {
    refuseForeignLease(deps.lease, op.leaseId, op.leaseSecret);
    // The engine resolves the environment, checks command support, parses the input, and names
    // the environment and the thread the write targets in its outcome.
    const release = claimOperation(op, deps);
    outcome = await deps.dispatcher.dispatchOutcome({
      leaseId: op.leaseId,
      lease: deps.lease.facts(op.leaseId),
      environment: op.environment ?? "",
      operationId: op.operationId,
      action: op.action,
      input: op.input,
    });
    // Refused before anything was recorded: the operationId stays free for whoever names it next.
    if (outcome.state === "not_recorded") release();
  } catch (error) {
    outcome = dispatchFailureOf(error);
  }
  const thread = outcome.threadId === undefined ? {} : { threadId: outcome.threadId };
  if (outcome.state === "completed") {
    if (outcome.launchedThreadId !== undefined) {
      deps.lease.recordLaunchedThread(op.leaseId, outcome.launchedThreadId);
    }
    if (!outcome.replayed)
      record(deps.lease, deps.clock, {
        ...base,
        ...thread,
        environmentId: outcome.environmentId,
        state: "completed",
      });
    await auditQuietly(deps.audit, {
      event: "dispatch",
      ...base,
      environmentId: outcome.environmentId,
      state: "completed",
      code: null,
      replayed: outcome.replayed,
    });
    return outcome;
  }
  const code = auditCodeOf(outcome.error);
  const environmentId = outcome.environmentId ?? null;
  const replayed = outcome.state !== "not_recorded" && outcome.replayed;
  if (outcome.state !== "not_recorded" && !replayed && environmentId !== null) {
    record(deps.lease, deps.clock, { ...base, ...thread, environmentId, state: outcome.state, code });
  }
  // Listed first, so the page shows the write under the lease it ended.
  if (outcome.endsLease !== undefined) deps.lease.end(op.leaseId, outcome.endsLease);
  await auditQuietly(deps.audit, {
    event: "dispatch",
    ...base,
    environmentId,
    state: outcome.state,
    code,
    replayed,
  });
  return outcome;
}

/**
 * A threads batch (ADR 0074): the engine parses it, keeps its manifest and decides where it stops;
 * each item is dispatched, recorded and audited here exactly as a single write.
 */
export async function threadsBatchOp(
  op: ThreadsBatchOp,
  deps: RelayOpDeps,
): Promise<RelayResultOf<"threads_batch">> {
  const run = deps.threadsBatch;
  if (run === undefined)
    throw new ConnectorError("invalid_request", "this gate does not run threads batches");
  refuseForeignLease(deps.lease, op.leaseId, op.leaseSecret);
  const result = await run(
    {
      leaseId: op.leaseId,
      lease: deps.lease.facts(op.leaseId),
      environment: op.environment ?? "",
      operationId: op.operationId,
      input: op.input,
    },
    (item) =>
      dispatchRecorded(
        {
          op: "dispatch",
          leaseId: item.leaseId,
          ...(op.leaseSecret === undefined ? {} : { leaseSecret: op.leaseSecret }),
          environment: item.environment,
          operationId: item.operationId,
          action: item.action,
          input: item.input,
        },
        deps,
      ),
  );
  return { ...result, items: [...result.items] };
}

export async function conditionalSendOp(
  op: ConditionalSendOp,
  deps: RelayOpDeps,
): Promise<RelayResultOf<"conditional_send">> {
  const run = deps.conditionalSend;
  if (run === undefined) {
    throw new ConnectorError("invalid_request", "this gate does not run conditional sends");
  }
  const environmentId = deps.registry.find(op.environment ?? "")?.environmentId ?? null;
  const base = { event: "conditional_send" as const, leaseId: op.leaseId, operationId: op.operationId };
  try {
    refuseForeignLease(deps.lease, op.leaseId, op.leaseSecret);
    const release = claimOperation(op, deps);
    const { endsLease, ...result } = await run({
      leaseId: op.leaseId,
      lease: deps.lease.facts(op.leaseId),
      environment: op.environment ?? "",
      operationId: op.operationId,
      input: op.input,
    }).catch((error: unknown) => {
      release();
      throw error;
    });
    const listed = listedState(result.state);
    if (!result.replayed && listed !== null) {
      record(deps.lease, deps.clock, {
        leaseId: op.leaseId,
        environmentId: result.environmentId,
        threadId: result.threadId,
        action: "thread.conditional-send",
        operationId: op.operationId,
        state: listed,
        ...(result.reason === undefined ? {} : { code: result.reason }),
      });
    }
    if (endsLease !== undefined) deps.lease.end(op.leaseId, endsLease);
    await auditQuietly(deps.audit, {
      ...base,
      environmentId: result.environmentId,
      state: result.state,
      reason: result.reason ?? null,
      code: null,
      replayed: result.replayed,
    });
    return result;
  } catch (error) {
    await auditQuietly(deps.audit, {
      ...base,
      environmentId,
      state: "not_recorded",
      reason: null,
      code: auditCodeOf(error),
      replayed: false,
    });
    throw error;
  }
}

/** Ids, actions, states and error codes only: a record never holds an input or message text. */
export async function listUncertainOp(deps: RelayOpDeps): Promise<RelayResultOf<"list_uncertain">> {
  if (deps.listUncertain === undefined) {
    throw new ConnectorError("invalid_request", "this gate does not list its journal");
  }
  const records = await deps.listUncertain();
  return {
    records: records.map((record) => ({
      key: record.key,
      operationId: record.operationId,
      environmentId: record.environmentId,
      action: record.action,
      state: record.state,
      createdAt: record.createdAt,
      updatedAt: record.updatedAt,
      error: record.error,
    })),
  };
}

/** How the lease page lists a conditional send; a pending one wrote nothing yet. */
function listedState(state: ConditionalSendResult["state"]): LeaseWrite["state"] | null {
  if (state === "completed" || state === "uncertain") return state;
  return state === "precondition_pending" ? null : "refused";
}

/**
 * Settles an uncertain write. It reads T3 for anyone holding the relay capability; it sends the
 * journaled command again only under the caller's own open lease, which must cover the write's
 * environment, projects and action (ADR 0042). Without one (no leaseId, a closed lease, after
 * Revoke all) it reads only and the answer says what stays uncertain and why nothing was resent.
 */
export async function reconcileOp(op: ReconcileOp, deps: RelayOpDeps): Promise<RelayResultOf<"reconcile">> {
  if (op.leaseId !== undefined) refuseForeignLease(deps.lease, op.leaseId, op.leaseSecret);
  const held = op.leaseId !== undefined && deps.lease.heldBy(op.leaseId, op.leaseSecret);
  const facts = held && op.leaseId !== undefined ? deps.lease.facts(op.leaseId) : null;
  const key = "key" in op ? op.key : deps.dispatcher.operationKey(op.environment ?? "", op.operationId);
  let outcome: ReconcileOutcome;
  try {
    outcome = await deps.dispatcher.reconcile(key, facts === null ? undefined : { lease: facts });
  } catch (error) {
    await auditQuietly(deps.audit, {
      event: "reconciled",
      environmentId:
        "key" in op ? "unknown" : (deps.registry.find(op.environment ?? "")?.environmentId ?? "unknown"),
      operationId: "key" in op ? "unknown" : op.operationId,
      state: "unknown",
      settled: false,
      method: null,
      found: null,
      code: auditCodeOf(error),
    });
    throw error;
  }
  await auditQuietly(deps.audit, reconciledEvent(outcome));
  // The state is anyone's to learn; what T3 answered (the receipt) only its holder's (ADR 0040).
  if (deps.owners !== undefined && !deps.owners.shows(outcome.key, op.leaseSecret)) {
    const { receipt: _hidden, ...observed } = outcome.observation ?? {};
    return {
      ...answerOf(outcome),
      observation:
        outcome.observation === null ? null : (observed as NonNullable<typeof outcome.observation>),
      receipt: null,
    };
  }
  return answerOf(outcome);
}

function answerOf(outcome: ReconcileOutcome): RelayResultOf<"reconcile"> {
  return {
    key: outcome.key,
    operationId: outcome.operationId,
    environmentId: outcome.environmentId,
    action: outcome.action,
    state: outcome.state,
    settled: outcome.settled,
    observation: outcome.observation,
    observedAt: outcome.observedAt,
    resend: outcome.resend,
    receipt: outcome.record.receipt,
    error: outcome.record.error,
  };
}

/**
 * Claims the operation for the calling holder before the journal is read (so two clients naming
 * one operationId at once cannot both be answered), refusing one another holder owns. An
 * environment the registry does not know claims nothing: the dispatcher refuses it unrecorded.
 */
function claimOperation(op: DispatchOp | ConditionalSendOp, deps: RelayOpDeps): () => void {
  if (deps.owners === undefined) return () => undefined;
  let key: string;
  try {
    key = deps.dispatcher.operationKey(op.environment ?? "", op.operationId);
  } catch {
    return () => undefined;
  }
  return deps.owners.claim(key, op.leaseSecret);
}

function record(keeper: LeaseKeeper, clock: Clock, write: Omit<LeaseWrite, "at">): void {
  try {
    keeper.recordWrite({ at: new Date(clock.now()).toISOString(), ...write });
  } catch {
    // The page's write list is informational; the journal is the record of truth.
  }
}

/**
 * The outcome already happened at T3 and is in the journal; a failed audit append closes every
 * lease (the log's onFailure) but must not turn a completed write into an error for the caller.
 */
async function auditQuietly(audit: AuditLog, event: Parameters<AuditLog["append"]>[0]): Promise<void> {
  await audit.append(event).catch(() => undefined);
}
