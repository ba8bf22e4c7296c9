/**
 * The write engine opened for one state directory: the journal and the dispatcher behind one
 * object, so that the gate and the reconcile command never hold either part on their own. The
 * engine owns the journal (opened here, closed by `close`) and every write rule; the caller owns
 * the environment registry and the leases, and hands each write its lease's facts (ADR 0063).
 * Clock, file system and workspace checks are injected.
 */

import { type Clock, type ConnectorError, systemClock } from "@t3-connector/core";
import type { JournalFs } from "@t3-connector/core/durable";
import type { EnvironmentRegistry } from "@t3-connector/core/environments";
import type { CommandSupportCache } from "../capabilities/index.js";
import {
  type ConditionalSendRequest,
  type ConditionalSendResult,
  conditionalSend,
} from "../dispatch/conditional-send.js";
import { createDispatcher } from "../dispatch/dispatcher.js";
import type { Dispatcher } from "../dispatch/dispatcher-contract.js";
import { LeaseRule } from "../dispatch/lease-rule.js";
import type { DispatchOutcome } from "../dispatch/outcome.js";
import type { ResendAuthority } from "../dispatch/resend-authority.js";
import {
  runThreadsBatch,
  type ThreadsBatchRequest,
  type ThreadsBatchResult,
} from "../dispatch/threads-batch.js";
import type {
  DispatchCompleted,
  DispatchRequest,
  ReconcileOutcome,
  WorkspaceVerifier,
} from "../dispatch/types.js";
import { executionDomainVerifier } from "../dispatch/workspace-verifier.js";
import { wouldPass } from "../dispatch/would-pass.js";
import type { WouldPassAnswer, WouldPassRequest } from "../dispatch/would-pass-types.js";
import type { Journal } from "../journal/journal.js";
import type { AuditAnchor, UnknownLoss } from "../journal/manifest.js";
import { openJournal } from "../journal/open-journal.js";
import type { JournalRecord, JournalStats } from "../journal/types.js";
import type { JournalWitness } from "../journal/witness.js";

export interface WriteEngineOptions {
  /** The state directory; the journal lives in `<stateDir>/journal/` and is locked while open. */
  readonly stateDir: string;
  /** Built with `OPERATE_SCOPES`; the caller creates and closes it. */
  readonly registry: EnvironmentRegistry;
  /** The stable caller identity in every journal key (never a boot id). */
  readonly channel: string;
  readonly clock?: Clock;
  /** Tests only: a file system that fails. */
  readonly fs?: JournalFs;
  /** Files outside the journal that vouch for it (the gate's audit log). */
  readonly witness?: JournalWitness;
  /** Called once when a journal write fails: from then on the engine admits nothing. */
  readonly onUnavailable?: (error: ConnectorError) => void;
  /** Told once when a journal of the previous format was migrated by this open. */
  readonly onMigrated?: (summary: { records: number; segments: number }) => void;
  /** Tests only: wraps the journal (the crash test's kill points). */
  readonly journalHook?: (journal: Journal) => Journal;
  /** Default: a realpath where the environment runs (local or over ssh). */
  readonly verifyWorkspace?: WorkspaceVerifier;
  /** Command support, checked and learned by the engine itself (ADR 0009, 0038). */
  readonly commandSupport?: CommandSupportCache;
}

/** An uncertain or preparing write as the engine lists it: ids, action, state, codes; never input. */
export type OpenWrite = JournalRecord;

export interface WriteEngine extends Dispatcher {
  /** Answers the completed write, or throws the refusal the client reads (its state in details). */
  dispatch(request: DispatchRequest): Promise<DispatchCompleted>;
  /**
   * The same dispatch, answered as a typed union: completed, refused, uncertain or not recorded,
   * each naming the thread the write targets once its input parsed (the caller never re-parses it).
   */
  dispatchOutcome(request: DispatchRequest): Promise<DispatchOutcome>;
  /** "When run R ends, optionally switch the model, then send" (every step journaled). */
  conditionalSend(request: ConditionalSendRequest): Promise<ConditionalSendResult>;
  /**
   * Up to 20 threads filed at once (ADR 0074): each item dispatched by `dispatchItem` (the caller's
   * single-write path, which records and audits it), the batch's manifest in the journal.
   */
  threadsBatch(
    request: ThreadsBatchRequest,
    dispatchItem: (request: DispatchRequest) => Promise<DispatchOutcome>,
  ): Promise<ThreadsBatchResult>;
  /**
   * Would this launch or message pass now under `request.scope` (the person's default grant)? The
   * send's own parse, reads, lease verdict and guards, collected; nothing sent or recorded (ADR 0075).
   */
  preflight(request: WouldPassRequest): Promise<WouldPassAnswer>;
  /** Settles an uncertain write; it resends only under `authority` (ADR 0042), else it reads only. */
  reconcile(key: string, authority?: ResendAuthority): Promise<ReconcileOutcome>;
  operationKey(environment: string, operationId: string): string;
  /** The writes whose outcome is unknown: what `reconcile` settles. */
  listUncertain(): Promise<readonly OpenWrite[]>;
  stats(): JournalStats;
  /** Losses recovery could not name: unknown operationIds are refused until each one's `until`. */
  unknownLossesInForce(): readonly UnknownLoss[];
  /** The journal's durable generation, recorded on every audit line (the witness's evidence). */
  readonly durableGeneration: number;
  /** Records in the journal's marker where the witness's chain stands (start and stop of a gate). */
  stampMarker(anchor: AuditAnchor): Promise<void>;
  /** Closes the journal and releases its lock; the registry stays the caller's. */
  close(): Promise<void>;
}

/**
 * Open the engine: the journal is checked whole (a damaged one rejects with `journal_damaged`,
 * changing nothing), then the dispatcher is bound to it with the caller's lease.
 */
export async function openWriteEngine(options: WriteEngineOptions): Promise<WriteEngine> {
  const clock = options.clock ?? systemClock;
  const opened = await openJournal({
    stateDir: options.stateDir,
    clock,
    ...(options.fs === undefined ? {} : { fs: options.fs }),
    ...(options.witness === undefined ? {} : { witness: options.witness }),
    ...(options.onUnavailable === undefined ? {} : { onUnavailable: options.onUnavailable }),
    ...(options.onMigrated === undefined ? {} : { onMigrated: options.onMigrated }),
  });
  try {
    return bindEngine(opened, options, clock);
  } catch (error) {
    await opened.close();
    throw error;
  }
}

function bindEngine(opened: Journal, options: WriteEngineOptions, clock: Clock): WriteEngine {
  const journal = options.journalHook?.(opened) ?? opened;
  const { registry, channel } = options;
  const leases = new LeaseRule(clock);
  const dispatcher = createDispatcher({
    registry,
    journal,
    clock,
    channel,
    leases,
    ...(options.verifyWorkspace === undefined ? {} : { verifyWorkspace: options.verifyWorkspace }),
    ...(options.commandSupport === undefined ? {} : { commandSupport: options.commandSupport }),
  });
  return {
    dispatch: (request) => dispatcher.dispatch(request),
    dispatchOutcome: (request) => dispatcher.dispatchOutcome(request),
    conditionalSend: (request) =>
      conditionalSend({ dispatcher, journal, registry, channel, clock, leases }, request),
    threadsBatch: (request, dispatchItem) =>
      runThreadsBatch({ journal, registry, channel, leases, dispatchItem }, request),
    preflight: (request) =>
      wouldPass(
        {
          registry,
          verifyWorkspace: options.verifyWorkspace ?? executionDomainVerifier(),
          ...(options.commandSupport === undefined ? {} : { commandSupport: options.commandSupport }),
        },
        request,
      ),
    reconcile: (key, authority) => dispatcher.reconcile(key, authority),
    operationKey: (environment, operationId) => dispatcher.operationKey(environment, operationId),
    listUncertain: () => journal.listUncertain(),
    stats: () => journal.stats(),
    unknownLossesInForce: () => journal.unknownLossesInForce(),
    get durableGeneration() {
      return opened.durableGeneration;
    },
    stampMarker: (anchor) => opened.stampMarker(anchor),
    close: () => opened.close(),
  };
}
