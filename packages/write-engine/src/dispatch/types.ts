/**
 * The shapes around one write: the facts of the lease it is made under, what a caller asks, and
 * what a dispatch or a reconciliation returns. The engine (dispatcher.ts) owns the order of the
 * steps and every rule (lease-rule.ts decides the lease's part); the gate owns leases, passkeys
 * and the relay, hands each write its lease's facts and records what the outcome tells it to
 * (ADR 0063). Nothing here calls back into the gate.
 */

import type { Transport } from "@t3-connector/core/config";
import type { ConnectedEnvironment } from "@t3-connector/core/environments";
import type {
  ActionId,
  DrivenThreadMode,
  LeaseScope,
  ProjectWriteKey,
  RuntimeMode,
} from "../actions/index.js";
import type { JournalReceipt, JournalRecord, JournalState } from "../journal/index.js";

/**
 * What the gate knows of one open lease, handed to the engine with each write (ADR 0063). A
 * lease's scope, ceiling and deadlines never change while it is open; only its end can come
 * later, so the engine reads `ended` (and its deadlines on its own clock) again right before the
 * send, with no `await` in between. Absent facts (`null`): no open lease by that id.
 */
export interface LeaseFacts {
  readonly leaseId: string;
  /** Environments, projects, named threads, actions, workspace roots and the runtime ceiling. */
  readonly scope: LeaseScope;
  /** Threads this lease created (a launch, a fork); a thread-limited lease admits them (ADR 0041). */
  readonly launched: ReadonlySet<string>;
  /** Aborted when the lease ends: End, Revoke all, a journal or audit failure, a later expiry check. */
  readonly ended: AbortSignal;
  /** When the lease expires, by the nearer of a monotonic and a wall-clock deadline (the engine's clock). */
  readonly deadline: { readonly monotonic: number; readonly wall: number };
}

/**
 * When the engine checks the lease. `admission`: before any I/O (environment and action only,
 * `projectIds` is empty). `scope`: after a fresh shell read, with the project of every referenced
 * thread. `send`: the final check; the one outbound send follows it with no `await` in between.
 */
export type LeaseStage = "admission" | "scope" | "send";

export interface LeaseRequest {
  readonly stage: LeaseStage;
  readonly environmentId: string;
  /** `t3://<environmentId>`. */
  readonly destination: string;
  readonly action: ActionId;
  /** Sorted, unique. Empty at `admission`, and when no referenced thread could be found. */
  readonly projectIds: readonly string[];
  /** The existing threads the write's input touches (known before any I/O; ADR 0041). */
  readonly threadIds?: readonly string[];
  /** For a project create or a forced delete, what of its input the lease must have bound (ADR 0074). */
  readonly projectWrite?: ProjectWriteKey;
  /**
   * The runtime mode the write's input runs an agent in (catalogue `runtimeModeField`), if any.
   * Absent at `admission` for an input that omits it: the verdict's ceiling then fills it.
   */
  readonly runtimeMode?: RuntimeMode;
  /**
   * For an action whose `runEffect` makes a thread's agent run (or changes what it does) in the
   * mode the thread already has, the driven thread with the highest mode, from the fresh read;
   * set at the `scope` stage only (ADR 0029, 0037).
   */
  readonly threadRuntimeMode?: DrivenThreadMode;
}

export type LeaseRefusalCode =
  | "lease_closed"
  | "environment_not_in_lease"
  | "scope_denied"
  | "runtime_mode_above_lease";

export type LeaseVerdict =
  | {
      readonly ok: true;
      /** Approved `workspaceRoots` of the lease's projects in this environment (workspace guard). */
      readonly approvedWorkspaceRoots: readonly string[];
      /**
       * The lease's runtime ceiling: the mode a launch or delegated task that names none runs in
       * (ADR 0037). Absent: `DEFAULT_RUNTIME_CEILING`, never T3's own `full-access`.
       */
      readonly runtimeCeiling?: RuntimeMode;
      /**
       * A forced delete's thread count as the approval page named it (ADR 0074): the send's own
       * fresh count may not exceed it.
       */
      readonly boundThreadCount?: number;
    }
  | {
      readonly ok: false;
      readonly code: LeaseRefusalCode;
      readonly message: string;
      /** What the refusal names (the ceiling and the requested mode for runtime_mode_above_lease). */
      readonly details?: Readonly<Record<string, unknown>>;
    };

/** Where a workspace path is checked: the environment and how it is reached. */
export interface WorkspaceTarget {
  readonly environment: ConnectedEnvironment;
  readonly transport: Transport;
}

/** Checks a workspace path where the environment runs; answers the canonical path, or null. */
export type WorkspaceVerifier = (target: WorkspaceTarget, path: string) => Promise<string | null>;

export interface DispatchRequest {
  /** The lease the client names; refused `lease_closed` when `lease` is not that open lease. */
  readonly leaseId: string;
  /** The named lease's facts as the gate holds them now, null when no such lease is open. */
  readonly lease: LeaseFacts | null;
  /** Alias or environmentId; mandatory. */
  readonly environment: string;
  readonly operationId: string;
  readonly action: string;
  readonly input: unknown;
}

/** The only successful answer: T3 acknowledged the one send (now, or in the replayed record). */
export interface DispatchCompleted {
  readonly state: "completed";
  readonly operationId: string;
  readonly environmentId: string;
  readonly action: ActionId;
  readonly key: string;
  /** True when the journal already held this outcome and nothing was sent now. */
  readonly replayed: boolean;
  /** True when this call settled an `uncertain` record (read T3, or sent the same command again). */
  readonly reconciled?: boolean;
  /** `{sequence}` for a command, `{threadId, resumed}` for a launch. */
  readonly receipt: JournalReceipt;
  readonly derivedIds: Readonly<Record<string, string>>;
  /** For an action whose input names a runtime mode: the mode it ran the agent in (filled when omitted). */
  readonly runtimeMode?: RuntimeMode;
  /** The first thread the write targets (absent for a launch): set by `dispatchOutcome`. */
  readonly threadId?: string;
  /**
   * A thread this write created (a launch, a fork: its derived `threadId`, not the thread it
   * targeted), which the lease now admits too (ADR 0041): set by `dispatchOutcome` for the gate.
   */
  readonly launchedThreadId?: string;
}

export interface Observation {
  /** How the effect was looked for, e.g. `message_in_projection`, `command_event_in_thread`. */
  readonly method: string;
  readonly found: boolean;
  /** When not found: T3 was read in full and shows no effect now (not a failed or partial read). */
  readonly conclusive?: boolean;
  /** Why it stays undecided, when not found. */
  readonly reason?: string;
  readonly receipt?: JournalReceipt;
}

/** What sending the journaled command again (same derived ids) answered. */
export interface ResendReport {
  /** False when it was not sent (outside the window, no command kept, an action T3 names ids for …). */
  readonly sent: boolean;
  /** `receipt`, `refused`, `conflict`, `defect`, `lost`, `not_sent`; or why nothing was sent. */
  readonly answer: string;
  /** The error code of a refusal or failure. */
  readonly code?: string;
}

export interface ReconcileOutcome {
  readonly key: string;
  readonly operationId: string;
  readonly environmentId: string;
  readonly action: string;
  /** The journal state after this call. */
  readonly state: JournalState;
  /** True when this call moved the record out of `uncertain`. */
  readonly settled: boolean;
  readonly observation: Observation | null;
  /** When T3 was read (the injected clock), null when nothing was read. */
  readonly observedAt: number | null;
  /** Null when settlement did not get as far as deciding about a resend. */
  readonly resend: ResendReport | null;
  readonly record: JournalRecord;
}
