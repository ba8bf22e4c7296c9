/**
 * The write engine. One dispatch runs, in this order:
 *
 *   command support (with a cache: connect, probe once per server version; refused unrecorded)
 *   → admission lease check (environment, action, the mode an input names; no further I/O)
 *   → fresh read (each referenced thread by id, the named projects) → scope lease check (project
 *     of every referenced thread; for a message, the current runtime mode of the thread it drives
 *     against the ceiling)
 *   → journal reserve (conflict / replay / own it)
 *   → preflight on fresh reads (guards, model selection, workspace): the same read when nothing
 *     was waited for since it, else read again (a project lock, an earlier record to finish)
 *   → journal `uncertain` with every derived id
 *   → final lease check and the one send, with no `await` between them
 *   → `completed` | `refused` | `uncertain`.
 *
 * Every lease check is the engine's own (`LeaseRule`, ADR 0063), over the facts the gate hands in
 * with the request; the final one reads again only whether the lease ended meanwhile. A lost send
 * ends the lease here at once (nothing more is sent under it) and its outcome tells the gate.
 *
 * A refusal is a refusal: a typed `Fail` or an older server's decode defect proves the handler
 * never ran (`refused`, final). Any other defect is decided by reading the thread. Only a lost
 * answer leaves the write `uncertain`; settlement (reconcile.ts) then reads T3 and, if the effect
 * is not there, sends the same journaled command again, which T3 dedupes by its commandId. A client
 * repeat of an uncertain operationId runs that settlement.
 *
 * Lease refusals before the reservation leave no record and say nothing about the operation.
 * Every refusal after it is recorded `refused` first, so "not sent" is only claimed once durable.
 */

import { ConnectorError } from "@t3-connector/core";
import type { ConnectedEnvironment, EnvironmentHandle } from "@t3-connector/core/environments";
import {
  type ActionId,
  type AnyActionDefinition,
  checkLocalGuards,
  DEFAULT_RUNTIME_CEILING,
  drivenThreadMode,
  getAction,
  type PreparedAction,
  prepareAction,
  type RuntimeMode,
  requestedRuntimeMode,
  withOmittedRuntimeMode,
} from "../actions/index.js";
import { learnFromRefusal, refuseUnkeptField, refuseUnsupportedAction } from "../capabilities/index.js";
import { type Journal, type JournalRecord, journalKey } from "../journal/index.js";
import { derivedRecord, sentIds } from "./derived-record.js";
import type { Dispatcher, DispatcherOptions } from "./dispatcher-contract.js";
import { type FreshThreads, projectsOf, readFreshThreads } from "./fresh-shell.js";
import { errorFromRefusedRecord, journalErrorOf } from "./journal-errors.js";
import { KeyedLock } from "./keyed-lock.js";
import { leaseRequestOf } from "./lease-request.js";
import { LeaseRule } from "./lease-rule.js";
import { type DispatchOutcome, dispatchFailureOf, ENDS_LEASE } from "./outcome.js";
import { runPreflight } from "./preflight.js";
import {
  DEFAULT_RESEND_WINDOW_MS,
  journalCommandOf,
  type ReconcileDeps,
  type ReconcileOptions,
  reconcileRecord,
} from "./reconcile.js";
import { type ResendAuthority, resendOptions } from "./resend-authority.js";
import { type SendOutcome, sendOnce } from "./send.js";
import type {
  DispatchCompleted,
  DispatchRequest,
  LeaseRequest,
  LeaseVerdict,
  ReconcileOutcome,
  WorkspaceVerifier,
} from "./types.js";
import { executionDomainVerifier } from "./workspace-verifier.js";

export function createDispatcher(options: DispatcherOptions): Dispatcher {
  if (typeof options.channel !== "string" || options.channel.trim() === "") {
    throw new ConnectorError("invalid_input", "the dispatcher needs a stable, non-empty channel identity");
  }
  return new WriteDispatcher(options);
}

/** Everything one dispatch carries from step to step. */
interface Operation {
  readonly request: DispatchRequest;
  readonly entry: AnyActionDefinition;
  readonly handle: EnvironmentHandle;
  readonly environmentId: string;
  readonly destination: string;
  readonly key: string;
  readonly prepared: PreparedAction;
  /** At admission only: the input named no mode, and the lease's ceiling will fill it. */
  readonly awaitingCeiling?: true;
  /** The environment, when command support already connected to it: resolved once per write. */
  readonly connected?: ConnectedEnvironment;
}

/** The first thread the write targets, from its parsed input (none for a launch). */
function targetThreadOf(entry: AnyActionDefinition, input: unknown): { threadId?: string } {
  const threadId = entry.targets(input).threadIds[0];
  return threadId === undefined ? {} : { threadId };
}

/**
 * The runtime mode the write's parsed input runs an agent in, per the catalogue's declaration;
 * none while an omitted mode waits for the lease's ceiling to fill it.
 */
function runtimeModeOf(operation: Operation): { runtimeMode?: RuntimeMode } {
  if (operation.awaitingCeiling === true) return {};
  const mode = requestedRuntimeMode(operation.entry.action, operation.prepared.input);
  return mode === undefined ? {} : { runtimeMode: mode };
}

export function destinationOf(environmentId: string): string {
  return `t3://${environmentId}`;
}

/** A copy of `error` with more details (ConnectorError's fields are read-only). */
export function withDetails(error: ConnectorError, extra: Record<string, unknown>): ConnectorError {
  return new ConnectorError(error.code, error.message, {
    ...(error.status === undefined ? {} : { status: error.status }),
    ...(error.t3 === undefined ? {} : { t3: error.t3 }),
    details: { ...error.details, ...extra },
    cause: error,
  });
}

function asConnectorError(error: unknown): ConnectorError {
  if (error instanceof ConnectorError) return error;
  return new ConnectorError("internal", "the write failed unexpectedly", { cause: error });
}

export function reconciliationRequired(
  record: JournalRecord,
  replayed: boolean,
  reason?: string,
): ConnectorError {
  return new ConnectorError(
    "reconciliation_required",
    `operation ${record.operationId} may or may not have reached T3; T3 could not settle it yet: reconcile it later`,
    {
      details: {
        state: "uncertain",
        replayed,
        operationId: record.operationId,
        key: record.key,
        ...(reason === undefined ? {} : { reason }),
        ...(record.error === null ? {} : { lastError: { ...record.error } }),
      },
    },
  );
}

/**
 * The per-operation lock is shared by every dispatcher on one journal, so an existing `preparing`
 * record seen under it can only be one that a stopped process left behind.
 */
const OPERATION_LOCKS = new WeakMap<Journal, KeyedLock>();

export function operationLockOf(journal: Journal): KeyedLock {
  let lock = OPERATION_LOCKS.get(journal);
  if (lock === undefined) {
    lock = new KeyedLock();
    OPERATION_LOCKS.set(journal, lock);
  }
  return lock;
}

class WriteDispatcher implements Dispatcher {
  readonly #options: DispatcherOptions;
  readonly #journal: Journal;
  /** One execution per operation key at a time (concurrent duplicates wait, then replay). */
  readonly #operations: KeyedLock;
  readonly #verifyWorkspace: WorkspaceVerifier;
  /** Project-scoped writes (launch, fork) one at a time per `[environmentId, projects]`. */
  readonly #projects = new KeyedLock();
  /** The lease's part of every check, over the facts each request carries. */
  readonly #leases: LeaseRule;

  constructor(options: DispatcherOptions) {
    this.#options = options;
    this.#leases = options.leases ?? new LeaseRule(options.clock);
    this.#journal = options.journal;
    this.#operations = operationLockOf(options.journal);
    this.#verifyWorkspace = options.verifyWorkspace ?? executionDomainVerifier();
  }

  operationKey(environment: string, operationId: string): string {
    const handle = this.#options.registry.resolve(environment);
    return journalKey({
      environmentId: handle.environmentId,
      destination: destinationOf(handle.environmentId),
      caller: this.#options.channel,
      operationId,
    });
  }

  async dispatch(request: DispatchRequest): Promise<DispatchCompleted> {
    const operation = await this.#begin(request);
    return this.#operations.run(operation.key, () => this.#run(operation));
  }

  /**
   * The same dispatch as a typed outcome, naming the environment and the thread the write targets
   * as far as it got (the gate's page row and audit line), so the caller resolves and parses nothing.
   */
  async dispatchOutcome(request: DispatchRequest): Promise<DispatchOutcome> {
    const known: { environmentId?: string; threadId?: string } = {};
    try {
      const operation = await this.#begin(request, known);
      const completed = await this.#operations.run(operation.key, () => this.#run(operation));
      return { ...completed, ...known, ...launchedThreadOf(completed, known.threadId) };
    } catch (error) {
      return { ...dispatchFailureOf(error), ...known };
    }
  }

  /**
   * Everything before the operation's lock: command support (as T3 refuses a type before decoding
   * its fields), the strict parse, the admission check, an omitted mode filled from the ceiling.
   */
  async #begin(
    request: DispatchRequest,
    known: { environmentId?: string; threadId?: string } = {},
  ): Promise<Operation> {
    if (typeof request.operationId !== "string" || request.operationId.trim() === "") {
      throw new ConnectorError("invalid_input", "operationId must be a non-empty string");
    }
    if (typeof request.leaseId !== "string" || request.leaseId === "") {
      throw new ConnectorError("lease_closed", "a write needs a leaseId");
    }
    const entry = getAction(request.action);
    const handle = this.#options.registry.resolve(request.environment);
    known.environmentId = handle.environmentId;
    const connected = await this.#supported(handle, entry.action);
    const environmentId = handle.environmentId;
    const destination = destinationOf(environmentId);
    const key = journalKey({
      environmentId,
      destination,
      caller: this.#options.channel,
      operationId: request.operationId,
    });
    // Strict parse before anything else, and the only one: a bad input is refused without a record.
    const prepared = prepareAction(entry.action, request.input, key);
    // A field this T3 may drop silently is refused before the record too (ADR 0069).
    refuseUnkeptField(connected ?? (await handle.connect()), entry.action, prepared.input);
    Object.assign(known, targetThreadOf(entry, prepared.input));
    const mismatch = checkLocalGuards(
      entry.guards.filter((guard) => guard.kind === "client_request_id_equals_operation_id"),
      prepared.input,
      { operationId: request.operationId, thread: () => undefined, approvedWorkspaceRoots: [] },
    );
    if (mismatch !== null) throw withDetails(mismatch, { recorded: false });
    const admitted: Operation = {
      request,
      entry,
      handle,
      environmentId,
      destination,
      key,
      prepared,
      ...(connected === undefined ? {} : { connected }),
      ...(prepared.runtimeModeOmitted ? { awaitingCeiling: true as const } : {}),
    };
    const verdict = this.#admit(admitted, "admission", []);
    if (!prepared.runtimeModeOmitted) return admitted;
    // A launch that names no mode runs at the lease's ceiling, not at T3's own full-access (ADR 0037).
    const { awaitingCeiling: _filled, ...rest } = admitted;
    return {
      ...rest,
      prepared: withOmittedRuntimeMode(prepared, verdict.runtimeCeiling ?? DEFAULT_RUNTIME_CEILING),
    };
  }

  /** With a command-support cache: the connection, once the server is known to run `action`. */
  async #supported(handle: EnvironmentHandle, action: ActionId): Promise<ConnectedEnvironment | undefined> {
    const cache = this.#options.commandSupport;
    if (cache === undefined) return undefined;
    const environment = await handle.connect();
    await refuseUnsupportedAction(cache, environment, action);
    return environment;
  }

  reconcile(key: string, authority?: ResendAuthority): Promise<ReconcileOutcome> {
    // Under the operation's lock: never observe a record while its own dispatch is still writing it.
    return this.#operations.run(key, async () => {
      const record = await this.#journal.get(key);
      const options = await resendOptions(record, authority, {
        rule: this.#leases,
        registry: this.#options.registry,
      });
      return this.#settle(key, options);
    });
  }

  /** Settlement of an uncertain record; the caller holds the operation's lock. */
  #settle(key: string, options: ReconcileOptions = {}): Promise<ReconcileOutcome> {
    const deps: ReconcileDeps = {
      journal: this.#journal,
      clock: this.#options.clock,
      registry: this.#options.registry,
      readTimeoutMs: this.#options.reconcileReadTimeoutMs ?? 10_000,
      resendWindowMs: this.#options.resendWindowMs ?? DEFAULT_RESEND_WINDOW_MS,
    };
    return reconcileRecord(key, deps, options);
  }

  #leaseRequest(
    operation: Operation,
    stage: LeaseRequest["stage"],
    projectIds: readonly string[],
    threadRuntimeMode?: LeaseRequest["threadRuntimeMode"],
  ): LeaseRequest {
    return leaseRequestOf(operation, stage, projectIds, threadRuntimeMode);
  }

  /** A lease refusal before the reservation: thrown as is, nothing recorded. */
  #admit(
    operation: Operation,
    stage: "admission" | "scope",
    projectIds: readonly string[],
    threadRuntimeMode?: LeaseRequest["threadRuntimeMode"],
  ) {
    const verdict = this.#verdict(
      operation,
      this.#leaseRequest(operation, stage, projectIds, threadRuntimeMode),
    );
    if (verdict.ok) return verdict;
    throw new ConnectorError(verdict.code, verdict.message, {
      details: { ...verdict.details, reason: verdict.code, stage, recorded: false },
    });
  }

  /** The lease's verdict from the request's facts; at `send`, the last word before the frame leaves. */
  #verdict(operation: Operation, request: LeaseRequest): LeaseVerdict {
    return this.#leases.verdict(operation.request.lease, operation.request.leaseId, request);
  }

  async #run(operation: Operation): Promise<DispatchCompleted> {
    const { entry, prepared, key } = operation;
    const environment = operation.connected ?? (await operation.handle.connect());
    if (!environment.scopes.includes("orchestration:operate")) {
      throw new ConnectorError(
        "insufficient_scope",
        `environment ${environment.alias} has no operate token`,
        {
          details: { recorded: false },
        },
      );
    }
    const targets = entry.targets(prepared.input);
    // The named projects too when the preflight may judge this read; a write serialised by project
    // reads them after its lock, where its preflight reads again anyway.
    const seen = await readFreshThreads(
      environment,
      targets.threadIds,
      entry.serializeByProject ? [] : targets.projectIds,
    );
    const projectIds = projectsOf(seen, targets.projectIds);
    const verdict = this.#admit(
      operation,
      "scope",
      projectIds,
      drivenThreadMode(entry.action, prepared.input, seen.found.values()),
    );

    const reservation = await this.#journal.reserve({
      environmentId: operation.environmentId,
      destination: operation.destination,
      caller: this.#options.channel,
      operationId: operation.request.operationId,
      action: entry.action,
      input: prepared.input,
    });
    // A `preparing` record found under our own lock was left by a process that stopped before
    // any send (`uncertain` is always durable before a send), so it is safe to carry on with it.
    if (reservation.kind === "existing" && reservation.record.state === "uncertain") {
      return this.#settleRepeat(operation, projectIds);
    }
    if (reservation.kind === "existing" && reservation.record.state !== "preparing") {
      return this.#replay(operation, reservation.record);
    }
    // A new reservation waited for nothing since the read above (no I/O between them): the
    // preflight judges that read, as T3 is right before the send. A lock or a leftover record
    // means other writes may have run meanwhile: it reads again.
    const stillFresh = reservation.kind === "reserved" && !entry.serializeByProject ? seen : undefined;
    try {
      const owned = () => this.#preflightAndSend(operation, environment, projectIds, verdict, stillFresh);
      if (!entry.serializeByProject) return await owned();
      return await this.#projects.run(JSON.stringify([operation.environmentId, ...projectIds]), owned);
    } catch (error) {
      const cache = this.#options.commandSupport;
      if (cache !== undefined) learnFromRefusal(cache, environment, error);
      throw await this.#refuseIfPreparing(key, asConnectorError(error));
    }
  }

  /** Any failure while the record is still `preparing` means nothing was sent: record `refused`. */
  async #refuseIfPreparing(key: string, error: ConnectorError): Promise<ConnectorError> {
    if (error.details?.state !== undefined) return error;
    try {
      const record = await this.#journal.get(key);
      if (record?.state !== "preparing") return error;
      await this.#journal.refuse(key, journalErrorOf(error));
      return withDetails(error, { state: "refused", sent: false, operationId: record.operationId });
    } catch {
      return error;
    }
  }

  /**
   * A repeat (same input) of an uncertain operation settles it: read T3, and if the effect is not
   * there send the same command again under the same ids, after the lease's final check.
   */
  async #settleRepeat(operation: Operation, projectIds: readonly string[]): Promise<DispatchCompleted> {
    const settled = await this.#settle(operation.key, {
      payload: operation.prepared.payload,
      finalCheck: () => this.#verdict(operation, this.#leaseRequest(operation, "send", projectIds)),
    });
    return this.#answerSettlement(operation, settled);
  }

  /** `sentNow`: this call made the first send itself (a defect it then settled by reading). */
  #answerSettlement(operation: Operation, settled: ReconcileOutcome, sentNow = false): DispatchCompleted {
    const { record } = settled;
    const resent = sentNow || settled.resend?.sent === true;
    if (record.state === "completed") {
      return {
        ...this.#replay(operation, record),
        replayed: !resent,
        ...(settled.settled ? { reconciled: true } : {}),
      };
    }
    if (record.state === "refused") {
      throw withDetails(errorFromRefusedRecord(record), {
        replayed: !resent,
        reconciled: settled.settled,
        sent: true,
      });
    }
    throw reconciliationRequired(record, !resent, settled.observation?.reason);
  }

  #replay(operation: Operation, record: JournalRecord): DispatchCompleted {
    if (record.state === "completed") {
      return {
        state: "completed",
        operationId: record.operationId,
        environmentId: record.environmentId,
        action: operation.entry.action,
        key: record.key,
        replayed: true,
        receipt: { ...(record.receipt ?? {}) },
        derivedIds: sentIds(record.derivedIds),
        ...runtimeModeOf(operation),
      };
    }
    if (record.state === "refused") throw errorFromRefusedRecord(record);
    throw reconciliationRequired(record, true);
  }

  async #preflightAndSend(
    operation: Operation,
    environment: ConnectedEnvironment,
    projectIds: readonly string[],
    verdict: Extract<LeaseVerdict, { ok: true }>,
    stillFresh: FreshThreads | undefined,
  ): Promise<DispatchCompleted> {
    const { entry, prepared, key } = operation;
    const targets = entry.targets(prepared.input);
    // The guards judge T3 as it is right before the send: the read made just before the
    // reservation when nothing was waited for since, else a read made now that the operation is ours.
    const fresh = stillFresh ?? (await readFreshThreads(environment, targets.threadIds, targets.projectIds));
    const refusal = await runPreflight({
      entry,
      input: prepared.input,
      operationId: operation.request.operationId,
      fresh,
      approvedWorkspaceRoots: verdict.approvedWorkspaceRoots,
      environment,
      transport: operation.handle.transport,
      verifyWorkspace: this.#verifyWorkspace,
      projectRoots: operation.handle.projectRoots,
      ...(verdict.boundThreadCount === undefined ? {} : { boundThreadCount: verdict.boundThreadCount }),
    });
    if (refusal !== null) {
      await this.#journal.refuse(key, journalErrorOf(refusal));
      throw withDetails(refusal, {
        state: "refused",
        sent: false,
        operationId: operation.request.operationId,
      });
    }
    const client = await environment.rpc();
    const uncertain = await this.#journal.markUncertain(
      key,
      derivedRecord(prepared.ids, targets.threadIds, fresh.snapshotSequence, targets.projectIds),
      journalCommandOf(prepared.payload),
    );
    const outcome = await sendOnce(client, prepared.payload, () =>
      this.#verdict(operation, this.#leaseRequest(operation, "send", projectIds)),
    );
    return this.#recordSend(operation, outcome, uncertain);
  }

  /**
   * What T3's answer to the one send means, recorded: completed, refused, or still uncertain. A
   * completion is answered without waiting for it to reach the disk (ADR 0062): the record is
   * `completed` in memory at once, every later reader of the key waits for that write, and a crash
   * before it lands leaves the record `uncertain` on disk, which settlement resolves by reading
   * T3 (it finds the effect, and sends nothing). Every other outcome is durable before its answer.
   */
  async #recordSend(
    operation: Operation,
    outcome: SendOutcome,
    uncertain: JournalRecord,
  ): Promise<DispatchCompleted> {
    const { key } = operation;
    const base = { operationId: operation.request.operationId };
    switch (outcome.kind) {
      case "completed": {
        // A failed write makes the journal unavailable (its own hook closes every lease); the
        // write itself completed at T3, which is what the caller is told. The rewrite rides on the
        // journal's next write when one comes soon (ADR 0066).
        this.#journal.complete(key, outcome.receipt, { withNextWrite: true }).catch(() => undefined);
        return {
          state: "completed",
          operationId: uncertain.operationId,
          environmentId: uncertain.environmentId,
          action: operation.entry.action,
          key,
          replayed: false,
          receipt: { ...outcome.receipt },
          derivedIds: sentIds(uncertain.derivedIds),
          ...runtimeModeOf(operation),
        };
      }
      case "not_sent":
        await this.#journal.refuse(key, journalErrorOf(outcome.error));
        throw withDetails(outcome.error, { ...base, state: "refused", sent: false });
      case "refused":
        // T3 proved it never ran the handler: the lease and the connection stay up.
        await this.#journal.refuse(key, journalErrorOf(outcome.error));
        throw withDetails(outcome.error, { ...base, state: "refused", sent: true });
      case "conflict": {
        const record = await this.#journal.recordError(key, {
          code: "rpc_failure/conflict",
          message: outcome.error.message,
        });
        throw reconciliationRequired(record, false, outcome.error.message);
      }
      case "defect": {
        // T3 answered, but a defect does not prove the handler never ran: read the thread.
        await this.#journal.recordError(key, {
          code: outcome.error.code,
          message: outcome.error.message,
        });
        return this.#answerSettlement(operation, await this.#settle(key, { resend: false }), true);
      }
      case "lost": {
        // The client must reconcile, not retry: its lease sends nothing more from this instant,
        // and the outcome tells the gate to end it (ADR 0022 §4, 0063).
        this.#leases.endAfterLostSend(operation.request.lease);
        const record = await this.#journal.recordError(key, {
          code: outcome.error.code,
          message: outcome.error.message,
        });
        throw withDetails(reconciliationRequired(record, false), { [ENDS_LEASE]: "uncertain_send" });
      }
    }
  }
}

/** A thread the completed write created (its derived `threadId`, not the one it targeted). */
function launchedThreadOf(
  completed: DispatchCompleted,
  targeted: string | undefined,
): { launchedThreadId?: string } {
  const created = completed.derivedIds.threadId;
  return created === undefined || created === targeted ? {} : { launchedThreadId: created };
}
