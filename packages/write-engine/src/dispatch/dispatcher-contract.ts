/**
 * The dispatcher as its callers see it: what it is built from and what it answers. Apart from
 * types.ts, whose shapes the lease rule, the outcome and the resend authority use, so that those
 * modules and this contract do not import each other.
 */
import type { Clock } from "@t3-connector/core";
import type { EnvironmentRegistry } from "@t3-connector/core/environments";
import type { CommandSupportCache } from "../capabilities/index.js";
import type { Journal } from "../journal/index.js";
import type { LeaseRule } from "./lease-rule.js";
import type { DispatchOutcome } from "./outcome.js";
import type { ResendAuthority } from "./resend-authority.js";
import type { DispatchCompleted, DispatchRequest, ReconcileOutcome, WorkspaceVerifier } from "./types.js";

export interface DispatcherOptions {
  /** Built with `OPERATE_SCOPES`. */
  readonly registry: EnvironmentRegistry;
  readonly journal: Journal;
  readonly clock: Clock;
  /** The stable caller identity (`<subject>|<binding>`), part of every journal key; never a boot id. */
  readonly channel: string;
  /** The lease rule, shared with the conditional send over this dispatcher; default a new one on `clock`. */
  readonly leases?: LeaseRule;
  /** Default `executionDomainVerifier()`: local realpath for URL environments, ssh realpath for SSH ones. */
  readonly verifyWorkspace?: WorkspaceVerifier;
  /**
   * Refuses, before the input is parsed or anything journaled, an action the environment's T3
   * cannot decode, and learns from a refusal that lists what it accepts (ADR 0009, 0038).
   * Without it, such a write is sent and T3's own decode defect refuses it.
   */
  readonly commandSupport?: CommandSupportCache;
  /** Deadline of each read the reconciliation makes over the socket. Default 10 s. */
  readonly reconcileReadTimeoutMs?: number;
  /**
   * How long after the original attempt (the record's `createdAt`) settlement may send the
   * journaled command again. Default `DEFAULT_RESEND_WINDOW_MS` (one hour; ADR 0006).
   */
  readonly resendWindowMs?: number;
}

export interface Dispatcher {
  dispatch(request: DispatchRequest): Promise<DispatchCompleted>;
  /** The same dispatch answered as a typed union, naming the thread it targets (see outcome.ts). */
  dispatchOutcome(request: DispatchRequest): Promise<DispatchOutcome>;
  /**
   * Settles an `uncertain` record: reads T3, and when the effect is not there sends the journaled
   * command again under the same derived ids (within the resend window); T3's answer decides. The
   * resend needs `authority` (the caller's lease that covers the write, or the operator's explicit
   * ask); without it the record is settled by reading only (ADR 0042).
   */
  reconcile(key: string, authority?: ResendAuthority): Promise<ReconcileOutcome>;
  /** The journal key of `(environment, operationId)` for this dispatcher's channel. */
  operationKey(environment: string, operationId: string): string;
}
