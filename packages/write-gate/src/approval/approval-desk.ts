/**
 * @module Pending approval requests (connector-contract §D.3): built from the live inventory, 120 s
 * each, at most 32, one WebAuthn challenge each. A request is consumed BEFORE its assertion is
 * verified (no replay, no double grant), and a close of the lease while an approval is verifying
 * (revoke, audit failure) makes that approval grant nothing.
 */
import { randomBytes } from "node:crypto";
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialRequestOptionsJSON,
} from "@simplewebauthn/server";
import { type Clock, ConnectorError } from "@t3-connector/core";
import { LEASE_DURATION_MINUTES, type LeaseScope, SCOPE_VERSION } from "@t3-connector/core/actions";
import type { ApprovalAsk, ApprovalDesk, ApprovalLink, EnvironmentLeftOut } from "../contract.js";
import type { GateLeaseKeeper, GrantedLease } from "../lease/index.js";
import type { Passkeys } from "../passkeys/index.js";
import type { Inventory, UnsupportedActions } from "./inventory.js";
import { narrowScope, type Selection, scopeFingerprint } from "./scope.js";

export const REQUEST_TTL_MS = 120_000;
export const MAX_PENDING_REQUESTS = 32;
const REQUEST_ID = /^[A-Za-z0-9_-]{43}$/;

export type ApprovalFailure =
  | "request_invalid"
  | "challenge_already_issued"
  | "challenge_invalid"
  | "selection_invalid"
  | "enrollment_required"
  | "lease_already_active";

export class ApprovalError extends Error {
  override readonly name = "ApprovalError";
  constructor(
    readonly code: ApprovalFailure,
    message: string,
  ) {
    super(message);
  }
}

interface PendingRequest {
  readonly id: string;
  readonly scope: LeaseScope;
  readonly fingerprint: string;
  readonly leftOut: readonly EnvironmentLeftOut[];
  readonly unsupported: readonly UnsupportedActions[];
  readonly monotonicDeadline: number;
  readonly expiresAt: string;
  /** Set once: the challenge and the narrowed scope it approves. */
  challenge?: { readonly value: string; readonly scope: LeaseScope };
}

/** What the page shows for one request. */
export interface RequestView {
  readonly requestId: string;
  readonly scope: LeaseScope;
  readonly scopeFingerprint: string;
  readonly leftOut: readonly EnvironmentLeftOut[];
  /** Per environment, the catalogue actions its T3 version cannot run (shown, never grantable). */
  readonly unsupported: readonly UnsupportedActions[];
  readonly expiresAt: string;
  readonly durationMinutes: number;
}

export interface GateApprovalDeskOptions {
  readonly inventory: Inventory;
  readonly keeper: GateLeaseKeeper;
  readonly passkeys: Passkeys;
  readonly clock: Clock;
  readonly port: number;
}

export class GateApprovalDesk implements ApprovalDesk {
  readonly #options: GateApprovalDeskOptions;
  readonly #pending = new Map<string, PendingRequest>();

  constructor(options: GateApprovalDeskOptions) {
    this.#options = options;
    // A close (revoke, audit or journal failure) ends every approval that was not granted yet.
    options.keeper.onClose(() => this.#pending.clear());
  }

  get pendingCount(): number {
    this.#prune();
    return this.#pending.size;
  }

  async request(ask: ApprovalAsk, signal?: AbortSignal): Promise<ApprovalLink> {
    this.#prune();
    if (this.#pending.size >= MAX_PENDING_REQUESTS) {
      throw new ConnectorError(
        "too_many_in_flight",
        `at most ${MAX_PENDING_REQUESTS} approval requests may be pending`,
      );
    }
    const epoch = this.#options.keeper.epoch;
    const outcomes = await this.#options.inventory(ask.environments, signal);
    const grants = outcomes.flatMap((outcome) => (outcome.ok ? [outcome.grant] : []));
    const leftOut = outcomes.flatMap((outcome) => (outcome.ok ? [] : [outcome.leftOut]));
    const unsupported = outcomes.flatMap((outcome) =>
      outcome.ok && outcome.unsupported !== undefined ? [outcome.unsupported] : [],
    );
    if (grants.length === 0) {
      throw new ConnectorError("environment_unavailable", "no environment could be inventoried", {
        details: { leftOut },
      });
    }
    // A close while the inventory ran still counts: the request must not outlive it.
    if (epoch !== this.#options.keeper.epoch) {
      throw new ConnectorError("lease_closed", "the gate closed while the request was being built");
    }
    this.#prune();
    if (this.#pending.size >= MAX_PENDING_REQUESTS) {
      throw new ConnectorError(
        "too_many_in_flight",
        `at most ${MAX_PENDING_REQUESTS} approval requests may be pending`,
      );
    }
    const scope: LeaseScope = {
      scopeVersion: SCOPE_VERSION,
      runtimeMode: "full-access",
      environments: [...grants].sort((a, b) => (a.alias < b.alias ? -1 : a.alias > b.alias ? 1 : 0)),
    };
    const id = randomBytes(32).toString("base64url");
    const { clock } = this.#options;
    const expiresAt = new Date(clock.now() + REQUEST_TTL_MS).toISOString();
    this.#pending.set(id, {
      id,
      scope,
      fingerprint: scopeFingerprint(scope),
      leftOut,
      unsupported,
      monotonicDeadline: clock.monotonic() + REQUEST_TTL_MS,
      expiresAt,
    });
    return {
      requestId: id,
      url: `http://localhost:${this.#options.port}/?request=${id}`,
      expiresAt,
      covered: scope.environments.map((grant) => ({
        alias: grant.alias,
        environmentId: grant.environmentId,
        label: grant.label,
        projectCount: grant.projects.length,
        actionCount: grant.actions.length,
      })),
      leftOut,
    };
  }

  view(requestId: string): RequestView {
    const pending = this.#live(requestId);
    return {
      requestId: pending.id,
      scope: pending.scope,
      scopeFingerprint: pending.fingerprint,
      leftOut: pending.leftOut,
      unsupported: pending.unsupported,
      expiresAt: pending.expiresAt,
      durationMinutes: LEASE_DURATION_MINUTES,
    };
  }

  /**
   * The one challenge of a request, bound to the narrowed scope it will approve: what the human
   * selected when asking for the challenge is what the assertion grants, nothing else.
   */
  async challenge(
    requestId: string,
    selection: Selection | undefined,
  ): Promise<{ options: PublicKeyCredentialRequestOptionsJSON; scopeFingerprint: string }> {
    const pending = this.#live(requestId);
    if (!this.#options.passkeys.hasAny()) {
      throw new ApprovalError("enrollment_required", "enroll a passkey before approving");
    }
    if (pending.challenge !== undefined) {
      throw new ApprovalError("challenge_already_issued", "this request already has its challenge");
    }
    const scope = selection === undefined ? pending.scope : narrowScope(pending.scope, selection);
    if (scope === null)
      throw new ApprovalError("selection_invalid", "the selection is not part of this request");
    const bytes = randomBytes(32);
    const value = bytes.toString("base64url");
    // Claimed before the await, so two concurrent calls cannot both get a challenge.
    pending.challenge = { value, scope };
    const options = await this.#options.passkeys.authenticationOptions(bytes);
    return { options, scopeFingerprint: scopeFingerprint(scope) };
  }

  /** Consumes the request, then verifies the assertion, then grants exactly the bound scope. */
  async approve(requestId: string, response: AuthenticationResponseJSON): Promise<GrantedLease> {
    const pending = this.#live(requestId);
    const bound = pending.challenge;
    if (bound === undefined) throw new ApprovalError("challenge_invalid", "ask for the challenge first");
    this.#pending.delete(requestId);
    const { keeper } = this.#options;
    const epoch = keeper.epoch;
    const credentialId = await this.#options.passkeys.verifyAuthentication(response, bound.value);
    if (epoch !== keeper.epoch) {
      throw new ApprovalError("request_invalid", "the gate closed while the approval was being verified");
    }
    if (keeper.current() !== null) throw new ApprovalError("lease_already_active", "a lease is already open");
    return keeper.grant({
      scope: bound.scope,
      scopeFingerprint: scopeFingerprint(bound.scope),
      credentialId,
    });
  }

  #live(requestId: string): PendingRequest {
    const pending = REQUEST_ID.test(requestId) ? this.#pending.get(requestId) : undefined;
    if (pending === undefined || this.#options.clock.monotonic() >= pending.monotonicDeadline) {
      if (pending !== undefined) this.#pending.delete(requestId);
      throw new ApprovalError("request_invalid", "unknown, used or expired approval request");
    }
    return pending;
  }

  #prune(): void {
    const now = this.#options.clock.monotonic();
    for (const [id, pending] of this.#pending) if (now >= pending.monotonicDeadline) this.#pending.delete(id);
  }
}
