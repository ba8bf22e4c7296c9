/**
 * @module Pending approval requests (ADR 0017): built from the live
 * inventory, 120 s each, at most 32, one WebAuthn challenge each. A request is consumed BEFORE its
 * assertion is verified (no replay, no double grant), and a close of the lease while an approval
 * is verifying (revoke, audit failure) makes that approval grant nothing. A client may propose
 * what the page ticks first and wait for the decision; the human may deny. A request that is no
 * longer live leaves a tombstone, so its link says why it is dead.
 */
import { randomBytes } from "node:crypto";
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialRequestOptionsJSON,
} from "@simplewebauthn/server";
import { type Clock, ConnectorError } from "@t3-connector/core";
import {
  ACTIONS,
  type ActionInfo,
  actionInfo,
  DEFAULT_RUNTIME_CEILING,
  LEASE_DURATION_MINUTES,
  type LeaseScope,
  RUNTIME_MODES,
  type RuntimeMode,
  runtimeCeilingWords,
  runtimeModeRank,
  SCOPE_VERSION,
} from "@t3-connector/write-engine/actions";
import type {
  ApprovalAsk,
  ApprovalDesk,
  ApprovalLink,
  EnvironmentLeftOut,
  RequestDecision,
} from "../contract.js";
import type { GateEvents } from "../events/gate-events.js";
import { type GateLeaseKeeper, type GrantedLease, holderHashOf } from "../lease/lease-keeper.js";
import type { Passkeys } from "../passkeys/index.js";
import type { AssertionVerifier } from "../passkeys/remote-passkeys.js";
import type { Inventory, InventoryThread, UnsupportedActions } from "./inventory.js";
import { nothingInventoried } from "./nothing-inventoried.js";
import {
  bindProjectWrites,
  type ProjectWriteFacts,
  type ShownProjectWrite,
  showProjectWrites,
} from "./project-writes.js";
import {
  type ClientInfo,
  checkProposal,
  cleanText,
  type InventoryView,
  type Preselection,
  type Proposal,
  preselect,
  proposalOf,
} from "./proposal.js";
import { type DeadRequestCode, RequestTombstones } from "./request-tombstones.js";
import {
  limitToThreads,
  type NamedThread,
  narrowScope,
  requestFingerprint,
  type Selection,
} from "./scope.js";
import { WithdrawnHolders } from "./withdrawn-holders.js";

export const REQUEST_TTL_MS = 120_000;
export const MAX_PENDING_REQUESTS = 32;
/**
 * Pending requests one client may hold (ADR 0028), so it cannot fill the others' slots. A client
 * is the bridge process that asks (its id), else the name it gives, else "unnamed".
 */
export const MAX_PENDING_PER_CLIENT = 4;
/** Waiting calls on one request at once (each holds a relay connection). */
export const MAX_WAITERS_PER_REQUEST = 8;
const REQUEST_ID = /^[A-Za-z0-9_-]{43}$/;
/** A holder secret the desk adopts: at least 256 bits in base64url, as the desk itself draws them. */
const ADOPTABLE_SECRET = /^[A-Za-z0-9_-]{43,256}$/;

/** What the live inventory offers a new request. */
interface Survey {
  readonly inventory: InventoryView;
  readonly leftOut: readonly EnvironmentLeftOut[];
  readonly unsupported: readonly UnsupportedActions[];
}

type Ending = Exclude<RequestDecision["outcome"], "pending">;

interface PendingRequest {
  readonly id: string;
  readonly scope: LeaseScope;
  readonly fingerprint: string;
  readonly leftOut: readonly EnvironmentLeftOut[];
  readonly unsupported: readonly UnsupportedActions[];
  readonly monotonicDeadline: number;
  readonly expiresAt: string;
  readonly purpose?: string;
  readonly client?: ClientInfo;
  readonly proposal?: Proposal;
  readonly preselected: Preselection;
  /** The threads the client named, by title and environment; the lease is limited to them (ADR 0041). */
  readonly namedThreads: readonly NamedThread[];
  /** The project writes the request names, with the facts read for the page (ADR 0074). */
  readonly projectWrites: readonly ShownProjectWrite[];
  readonly bridge?: string;
  /** Whose budget the request counts against (`clientKeyOf`). */
  readonly clientKey: string;
  /** The holder's open lease this request replaces when approved. */
  readonly replaces?: string;
  /** SHA-256 of the secret the creating call received; the lease keeps it (ADR 0022). */
  readonly holderHash: string;
  readonly waiters: Set<(decision: RequestDecision) => void>;
  readonly expiryTimer: ReturnType<typeof setTimeout>;
  /** Set once: the challenge, the narrowed scope it approves, and the passkey set that must answer it. */
  challenge?: { readonly value: string; readonly scope: LeaseScope; readonly verifier: AssertionVerifier };
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
  /** The client's own words, cleaned; untrusted. */
  readonly purpose?: string;
  readonly client?: ClientInfo;
  readonly proposal?: Proposal;
  readonly preselected: Preselection;
  /**
   * The threads the client named, each with its title and environment: unless the person widens
   * the lease to whole projects (`wholeProjects`), writes may touch only these (ADR 0041).
   */
  readonly namedThreads: readonly NamedThread[];
  /**
   * The project creates and forced deletes the request names, each with the page's words (the
   * exact folder and whether it would be made; the thread count): the lease admits only these.
   */
  readonly projectWrites: readonly ShownProjectWrite[];
  /** Every action of the scope, in catalogue order, in words a person understands. */
  readonly actionInfo: readonly ActionInfo[];
  /** True when approving replaces the asking client's own open lease. */
  readonly replacesLease: boolean;
  /** The ceilings the person may choose, highest (the request's own) first, with their words. */
  readonly ceilingChoices: readonly CeilingChoice[];
  readonly serverNow: string;
}

/** One runtime ceiling the page offers: per environment, what it lets an agent do (ADR 0022). */
export interface CeilingChoice {
  readonly mode: RuntimeMode;
  readonly words: Readonly<Record<string, string>>;
}

function ceilingChoices(scope: LeaseScope): CeilingChoice[] {
  return RUNTIME_MODES.filter((mode) => runtimeModeRank(mode) <= runtimeModeRank(scope.runtimeMode))
    .reverse()
    .map((mode) => ({
      mode,
      words: Object.fromEntries(
        scope.environments.map((grant) => [grant.environmentId, runtimeCeilingWords(mode, grant.alias)]),
      ),
    }));
}

/** One row of `pendingRequests` in the page's state. */
export interface PendingRequestRow {
  readonly requestId: string;
  readonly purpose?: string;
  readonly client?: ClientInfo;
  readonly expiresAt: string;
}

export interface GateApprovalDeskOptions {
  readonly inventory: Inventory;
  readonly keeper: GateLeaseKeeper;
  readonly passkeys: Passkeys;
  readonly clock: Clock;
  readonly port: number;
  readonly events?: GateEvents;
  /** The public origin the approval link names when approval from afar is on (ADR 0050). */
  readonly approvalOrigin?: string;
  /** Reads a named project write's facts (ADR 0074); absent, a request naming one is refused. */
  readonly projectWriteFacts?: ProjectWriteFacts;
}

const DEAD_MESSAGES: Readonly<Record<DeadRequestCode, string>> = {
  request_expired: "this approval request expired; ask the client for a new one",
  request_used: "this approval request was already used",
  request_denied: "this approval request was denied",
  request_superseded: "a newer request from the same client, or Revoke all, replaced this approval request",
  request_withdrawn: "the session that asked for this approval request ended, so it was withdrawn",
};

const ENDING_CODE: Readonly<Record<Ending, DeadRequestCode>> = {
  approved: "request_used",
  used: "request_used",
  denied: "request_denied",
  expired: "request_expired",
  superseded: "request_superseded",
};

export class GateApprovalDesk implements ApprovalDesk {
  readonly #options: GateApprovalDeskOptions;
  readonly #pending = new Map<string, PendingRequest>();
  readonly #tombstones = new RequestTombstones();
  /** Holders whose session ended: a request one of them is still building is never kept. */
  readonly #withdrawn = new WithdrawnHolders();
  /**
   * Requests consumed by an approval whose assertion is being verified, by id: a withdrawal that
   * lands meanwhile marks them, and the approval then grants nothing.
   */
  readonly #verifying = new Map<string, { readonly holderHash: string; withdrawn: boolean }>();
  /** Thread titles from the latest inventories, for the page's write rows. */
  readonly #threadTitles = new Map<string, string>();
  /** Aliases of the environments the inventories saw (a handful: one per configured environment). */
  readonly #aliases = new Map<string, string>();

  constructor(options: GateApprovalDeskOptions) {
    this.#options = options;
    // Closing every lease (revoke all, audit or journal failure) ends every approval not granted yet;
    // ending one lease leaves the other clients' requests alone (ADR 0028).
    options.keeper.onCloseAll(() => {
      for (const id of [...this.#pending.keys()]) this.#end(id, "superseded");
    });
  }

  get pendingCount(): number {
    this.#prune();
    return this.#pending.size;
  }

  async request(ask: ApprovalAsk, signal?: AbortSignal): Promise<ApprovalLink> {
    this.#refuseWhenFull(ask);
    // A secret the asking process already holds is kept (ADR 0040): its next lease answers it.
    const adopted =
      ask.holderSecret !== undefined && ADOPTABLE_SECRET.test(ask.holderSecret)
        ? ask.holderSecret
        : undefined;
    const leaseSecret = adopted ?? randomBytes(32).toString("base64url");
    const holderHash = holderHashOf(leaseSecret);
    this.#refuseWithdrawn(holderHash);
    const epoch = this.#options.keeper.epoch;
    const survey = await this.#survey(ask, signal);
    const proposal = proposalOf(withProjectWrites(ask));
    // Refused before anything is kept: a misnamed proposal creates no request.
    if (proposal !== undefined) checkProposal(proposal, survey.inventory);
    const projectWrites = await showProjectWrites(
      ask.projectWrites ?? [],
      survey.inventory,
      this.#options.projectWriteFacts,
      signal,
    );
    if (survey.inventory.scope.environments.length === 0) throw nothingInventoried(survey.leftOut);
    // A close while the inventory ran still counts: the request must not outlive it.
    if (epoch !== this.#options.keeper.epoch) {
      throw new ConnectorError("lease_closed", "the gate closed while the request was being built");
    }
    // So does the end of the session that asks (its withdrawal landed while the inventory ran).
    this.#refuseWithdrawn(holderHash);
    // The same bridge (or holder) asking again replaces its own older request (its link is now stale).
    for (const pending of [...this.#pending.values()]) {
      const same =
        (ask.bridge !== undefined && pending.bridge === ask.bridge) || pending.holderHash === holderHash;
      if (same) this.#end(pending.id, "superseded");
    }
    this.#refuseWhenFull(ask);
    const pending = this.#keep(ask, survey, proposal, holderHash, projectWrites);
    this.#options.events?.publish({ type: "request", data: { requestId: pending.id } });
    // A secret is handed back only when the desk drew it: an adopted one is the caller's already.
    return { ...this.#linkOf(pending), ...(adopted === undefined ? { leaseSecret } : {}) };
  }

  /** A holder whose session ended asks for nothing more: its requests were withdrawn for good. */
  #refuseWithdrawn(holderHash: string): void {
    if (!this.#withdrawn.has(holderHash)) return;
    throw new ConnectorError("request_withdrawn", DEAD_MESSAGES.request_withdrawn, { status: 410 });
  }

  pendingHeldBy(secret: string | undefined): Omit<ApprovalLink, "leaseSecret"> | null {
    if (secret === undefined) return null;
    this.#prune();
    const hash = holderHashOf(secret);
    const held = [...this.#pending.values()].find((pending) => pending.holderHash === hash);
    return held === undefined ? null : this.#linkOf(held);
  }

  withdrawHeldBy(secret: string): number {
    const hash = holderHashOf(secret);
    this.#withdrawn.add(hash);
    let withdrawn = 0;
    for (const pending of [...this.#pending.values()]) {
      if (pending.holderHash !== hash) continue;
      this.#end(pending.id, "superseded", { code: "request_withdrawn" });
      withdrawn += 1;
    }
    for (const [requestId, verifying] of this.#verifying) {
      if (verifying.holderHash !== hash || verifying.withdrawn) continue;
      verifying.withdrawn = true;
      this.#tombstones.bury(requestId, { code: "request_withdrawn" });
      withdrawn += 1;
    }
    return withdrawn;
  }

  #linkOf(pending: PendingRequest): Omit<ApprovalLink, "leaseSecret"> {
    return {
      requestId: pending.id,
      url: this.#url(pending.id),
      expiresAt: pending.expiresAt,
      scopeFingerprint: pending.fingerprint,
      covered: pending.scope.environments.map((grant) => ({
        alias: grant.alias,
        environmentId: grant.environmentId,
        label: grant.label,
        projectCount: grant.projects.length,
        actionCount: grant.actions.length,
      })),
      leftOut: pending.leftOut,
    };
  }

  async defaultScope(signal?: AbortSignal): Promise<LeaseScope> {
    return (await this.#survey({}, signal)).inventory.scope;
  }

  /**
   * The whole live inventory, always (the human may widen beyond what the client proposed), as the
   * request's scope; the titles and aliases it saw are remembered for the page's write rows.
   */
  async #survey(ask: ApprovalAsk, signal: AbortSignal | undefined): Promise<Survey> {
    const outcomes = await this.#options.inventory(undefined, signal);
    const grants = outcomes.flatMap((outcome) => (outcome.ok ? [outcome.grant] : []));
    const leftOut = outcomes.flatMap((outcome) => (outcome.ok ? [] : [outcome.leftOut]));
    const unsupported = outcomes.flatMap((outcome) =>
      outcome.ok && outcome.unsupported !== undefined ? [outcome.unsupported] : [],
    );
    const threads = outcomes.flatMap((outcome) =>
      outcome.ok
        ? (outcome.threads ?? []).map((thread: InventoryThread) => ({
            ...thread,
            environmentId: outcome.grant.environmentId,
          }))
        : [],
    );
    for (const thread of threads) this.#rememberTitle(thread.environmentId, thread.id, thread.title);
    for (const seen of [...grants, ...leftOut]) this.#aliases.set(seen.environmentId, seen.alias);
    const scope: LeaseScope = {
      scopeVersion: SCOPE_VERSION,
      // The ceiling the client proposed, else the lowest; the person may only lower it.
      runtimeMode: ask.runtimeCeiling ?? DEFAULT_RUNTIME_CEILING,
      environments: [...grants].sort((a, b) => (a.alias < b.alias ? -1 : a.alias > b.alias ? 1 : 0)),
    };
    return { inventory: { scope, leftOut, threads }, leftOut, unsupported };
  }

  /** Keeps a new pending request; its own expiry is an event too (waiters and the page learn it). */
  #keep(
    ask: ApprovalAsk,
    survey: Survey,
    proposal: Proposal | undefined,
    holderHash: string,
    projectWrites: readonly ShownProjectWrite[],
  ): PendingRequest {
    const id = randomBytes(32).toString("base64url");
    const { clock } = this.#options;
    const { scope } = survey.inventory;
    const purpose = cleanText(ask.purpose);
    const client = clientOf(ask.client);
    const expiresAt = new Date(clock.now() + REQUEST_TTL_MS).toISOString();
    const expiryTimer = setTimeout(() => this.#prune(), REQUEST_TTL_MS + 1);
    expiryTimer.unref?.();
    const preselected = preselect(proposal, survey.inventory);
    const namedThreads = namedThreadsOf(proposal, survey.inventory);
    const pending: PendingRequest = {
      id,
      scope,
      // One fingerprint (ADR 0070): of what approving as the page shows it grants, so the page,
      // the request's link and the lease an unchanged approval makes all show the same one.
      fingerprint: requestFingerprint(
        {
          requestId: id,
          expiresAt,
          leaseMinutes: LEASE_DURATION_MINUTES,
          ...(purpose === undefined ? {} : { purpose }),
          ...(client === undefined ? {} : { client }),
        },
        bindProjectWrites(shownScope(scope, preselected, namedThreads), projectWrites),
      ),
      leftOut: survey.leftOut,
      unsupported: survey.unsupported,
      monotonicDeadline: clock.monotonic() + REQUEST_TTL_MS,
      expiresAt,
      ...(purpose === undefined ? {} : { purpose }),
      ...(client === undefined ? {} : { client }),
      ...(proposal === undefined ? {} : { proposal }),
      preselected,
      namedThreads,
      projectWrites,
      ...(ask.bridge === undefined ? {} : { bridge: ask.bridge }),
      clientKey: clientKeyOf(ask),
      holderHash,
      ...(ask.replaces === undefined ? {} : { replaces: ask.replaces }),
      waiters: new Set(),
      expiryTimer,
    };
    this.#pending.set(id, pending);
    return pending;
  }

  view(requestId: string): RequestView {
    const pending = this.#live(requestId);
    const inScope = new Set(pending.scope.environments.flatMap((grant) => grant.actions));
    return {
      requestId: pending.id,
      scope: pending.scope,
      scopeFingerprint: pending.fingerprint,
      leftOut: pending.leftOut,
      unsupported: pending.unsupported,
      expiresAt: pending.expiresAt,
      durationMinutes: LEASE_DURATION_MINUTES,
      ...(pending.purpose === undefined ? {} : { purpose: pending.purpose }),
      ...(pending.client === undefined ? {} : { client: pending.client }),
      ...(pending.proposal === undefined ? {} : { proposal: pending.proposal }),
      preselected: pending.preselected,
      namedThreads: pending.namedThreads,
      projectWrites: pending.projectWrites,
      actionInfo: ACTIONS.filter((entry) => inScope.has(entry.action)).map((entry) =>
        actionInfo(entry.action),
      ),
      ceilingChoices: ceilingChoices(pending.scope),
      replacesLease:
        (pending.replaces !== undefined && this.#options.keeper.get(pending.replaces) !== null) ||
        this.#options.keeper.list().some((open) => open.holderHash === pending.holderHash),
      serverNow: new Date(this.#options.clock.now()).toISOString(),
    };
  }

  pendingRequests(): PendingRequestRow[] {
    this.#prune();
    return [...this.#pending.values()].map((pending) => ({
      requestId: pending.id,
      ...(pending.purpose === undefined ? {} : { purpose: pending.purpose }),
      ...(pending.client === undefined ? {} : { client: pending.client }),
      expiresAt: pending.expiresAt,
    }));
  }

  link(requestId: string): Pick<ApprovalLink, "requestId" | "url" | "expiresAt" | "scopeFingerprint"> | null {
    const pending = this.#pending.get(requestId);
    if (pending === undefined || this.#expired(pending)) return null;
    return {
      requestId,
      url: this.#url(requestId),
      expiresAt: pending.expiresAt,
      scopeFingerprint: pending.fingerprint,
    };
  }

  /** The link the person opens for this request (the public origin's when approval from afar is on). */
  approvalUrl(requestId: string): string {
    return this.#url(requestId);
  }

  #url(requestId: string): string {
    // From afar when configured (ADR 0050): the link works on a phone; the localhost page still does.
    const remote = this.#options.approvalOrigin;
    if (remote !== undefined) return `${remote}/approve?request=${requestId}`;
    return `http://localhost:${this.#options.port}/?request=${requestId}`;
  }

  /** The alias an inventory saw for an environment id (the id itself when none did). */
  environmentAlias(environmentId: string): string {
    return this.#aliases.get(environmentId) ?? environmentId;
  }

  /** The title the latest inventory saw for a thread, if any. */
  threadTitle(environmentId: string, threadId: string): string | undefined {
    return this.#threadTitles.get(`${environmentId}\u0000${threadId}`);
  }

  /** Denying grants nothing, so it needs no passkey; the client's wait or next call learns it. */
  deny(requestId: string): void {
    this.#live(requestId);
    this.#end(requestId, "denied");
  }

  wait(requestId: string, waitMs: number, signal?: AbortSignal): Promise<RequestDecision> {
    const pending = this.#pending.get(requestId);
    if (pending === undefined || this.#expired(pending)) {
      if (pending !== undefined) this.#end(requestId, "expired");
      return Promise.resolve(this.#decisionOfDead(requestId));
    }
    if (waitMs <= 0) return Promise.resolve({ outcome: "pending" });
    if (pending.waiters.size >= MAX_WAITERS_PER_REQUEST) {
      throw new ConnectorError(
        "too_many_in_flight",
        `at most ${MAX_WAITERS_PER_REQUEST} calls may wait on one request`,
      );
    }
    return new Promise<RequestDecision>((resolve) => {
      const finish = (decision: RequestDecision) => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        pending.waiters.delete(finish);
        resolve(decision);
      };
      const onAbort = () => finish({ outcome: "pending" });
      // The wait ends at its own bound or at the request's expiry, whichever comes first.
      const remaining = pending.monotonicDeadline - this.#options.clock.monotonic();
      const timer = setTimeout(
        () => {
          // An expiry tells every waiter through #end; otherwise (or if already ended) this one is pending.
          if (this.#pending.get(pending.id) === pending && this.#expired(pending)) {
            this.#end(pending.id, "expired");
          }
          finish({ outcome: "pending" });
        },
        Math.max(0, Math.min(waitMs, remaining + 1)),
      );
      pending.waiters.add(finish);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /**
   * The one challenge of a request, bound to the narrowed scope it will approve: what the human
   * selected when asking for the challenge is what the assertion grants, nothing else.
   */
  async challenge(
    requestId: string,
    selection: Selection | undefined,
    /** The passkey set that must answer: the gate's own, or the sign-in set from afar (ADR 0050). */
    verifier: AssertionVerifier = this.#options.passkeys,
  ): Promise<{ options: PublicKeyCredentialRequestOptionsJSON; scopeFingerprint: string }> {
    const pending = this.#live(requestId);
    if (!verifier.hasAny()) {
      throw new ConnectorError("enrollment_required", "enroll a passkey before approving");
    }
    if (pending.challenge !== undefined) {
      throw new ConnectorError("challenge_already_issued", "this request already has its challenge");
    }
    const narrowed = selection === undefined ? pending.scope : narrowScope(pending.scope, selection);
    if (narrowed === null)
      throw new ConnectorError("selection_invalid", "the selection is not part of this request");
    // What the page shows is what is granted: the named threads only, unless the person widened it.
    const scope = bindProjectWrites(
      limitToThreads(narrowed, pending.namedThreads, selection?.wholeProjects === true),
      pending.projectWrites,
    );
    const bytes = randomBytes(32);
    const value = bytes.toString("base64url");
    // Claimed before the await, so two concurrent calls cannot both get a challenge.
    pending.challenge = { value, scope, verifier };
    const options = await verifier.authenticationOptions(bytes);
    return { options, scopeFingerprint: fingerprintOf(pending, scope) };
  }

  /** Consumes the request, then verifies the assertion, then grants exactly the bound scope. */
  async approve(requestId: string, response: AuthenticationResponseJSON): Promise<GrantedLease> {
    const pending = this.#live(requestId);
    const bound = pending.challenge;
    if (bound === undefined) throw new ConnectorError("challenge_invalid", "ask for the challenge first");
    // Consumed before the await: a failed or replayed assertion can never use it again.
    this.#end(requestId, "used", { silent: true });
    const { keeper } = this.#options;
    const epoch = keeper.epoch;
    const verifying = { holderHash: pending.holderHash, withdrawn: false };
    this.#verifying.set(requestId, verifying);
    let lease: GrantedLease;
    try {
      const credentialId = await bound.verifier.verifyAuthentication(response, bound.value);
      // The session that asked ended while the passkey answered: nobody would hold this lease.
      if (verifying.withdrawn) {
        throw new ConnectorError("request_withdrawn", DEAD_MESSAGES.request_withdrawn, { status: 410 });
      }
      if (epoch !== keeper.epoch) {
        throw new ConnectorError(
          "request_superseded",
          "the gate closed every approval while this one was being verified",
          { status: 410 },
        );
      }
      // The holder's own request for more replaces its lease; other clients' leases stay open.
      // One lease per holder secret (ADR 0040): any other lease it holds is replaced too.
      if (pending.replaces !== undefined) keeper.end(pending.replaces, "replaced");
      for (const open of keeper.list()) {
        if (open.holderHash === pending.holderHash) keeper.end(open.leaseId, "replaced");
      }
      lease = keeper.grant({
        scope: bound.scope,
        scopeFingerprint: fingerprintOf(pending, bound.scope),
        credentialId,
        holderHash: pending.holderHash,
        ...(pending.client === undefined ? {} : { client: pending.client }),
      });
    } catch (error) {
      // The attempt used the request up; a client waiting on it must not wait for nothing.
      for (const waiter of [...pending.waiters]) waiter({ outcome: "used" });
      throw error;
    } finally {
      this.#verifying.delete(requestId);
    }
    this.#tombstones.bury(requestId, { code: "request_used", leaseId: lease.leaseId });
    for (const waiter of [...pending.waiters]) waiter({ outcome: "approved", lease });
    this.#options.events?.publish({ type: "decision", data: { requestId, outcome: "approved" } });
    return lease;
  }

  #live(requestId: string): PendingRequest {
    const pending = REQUEST_ID.test(requestId) ? this.#pending.get(requestId) : undefined;
    if (pending !== undefined && this.#expired(pending)) this.#end(requestId, "expired");
    else if (pending !== undefined) return pending;
    const dead = REQUEST_ID.test(requestId) ? this.#tombstones.get(requestId) : undefined;
    if (dead !== undefined) throw new ConnectorError(dead.code, DEAD_MESSAGES[dead.code], { status: 410 });
    throw new ConnectorError("request_invalid", "no approval request has this id", { status: 404 });
  }

  #decisionOfDead(requestId: string): RequestDecision {
    const dead = REQUEST_ID.test(requestId) ? this.#tombstones.get(requestId) : undefined;
    if (dead === undefined) {
      throw new ConnectorError("request_invalid", "no approval request has this id", { status: 404 });
    }
    if (dead.code === "request_used") {
      const lease = dead.leaseId === undefined ? null : this.#options.keeper.get(dead.leaseId);
      return lease !== null ? { outcome: "approved", lease } : { outcome: "used" };
    }
    const outcome = (
      {
        request_denied: "denied",
        request_expired: "expired",
        request_superseded: "superseded",
        // Only the ended session's own calls could wait on it; "superseded" tells them to ask again.
        request_withdrawn: "superseded",
      } as const
    )[dead.code];
    return { outcome };
  }

  /** Ends a live request: tombstone, its waiters told, the page nudged. */
  #end(requestId: string, ending: Ending, options: { silent?: boolean; code?: DeadRequestCode } = {}): void {
    const pending = this.#pending.get(requestId);
    if (pending === undefined) return;
    this.#pending.delete(requestId);
    clearTimeout(pending.expiryTimer);
    this.#tombstones.bury(requestId, { code: options.code ?? ENDING_CODE[ending] });
    if (options.silent === true) return;
    for (const waiter of [...pending.waiters]) waiter({ outcome: ending } as RequestDecision);
    // Every end a phone must learn of (ADR 0073): a push that said "waiting" is told it is gone.
    if (ending === "denied" || ending === "expired") {
      this.#options.events?.publish({ type: "decision", data: { requestId, outcome: ending } });
    } else if (ending === "superseded") {
      const outcome = options.code === "request_withdrawn" ? "withdrawn" : "superseded";
      this.#options.events?.publish({ type: "decision", data: { requestId, outcome } });
    }
  }

  #expired(pending: PendingRequest): boolean {
    return this.#options.clock.monotonic() >= pending.monotonicDeadline;
  }

  /** Refuses a request over the asking client's own budget, or over the gate's memory bound. */
  #refuseWhenFull(ask: ApprovalAsk): void {
    this.#prune();
    const key = clientKeyOf(ask);
    const own = [...this.#pending.values()].filter((pending) => pending.clientKey === key).length;
    if (own >= MAX_PENDING_PER_CLIENT) {
      throw new ConnectorError(
        "client_budget_exceeded",
        `this client already has ${MAX_PENDING_PER_CLIENT} approval requests pending, its limit: wait for the person to decide one, or let one expire`,
        { details: { budget: "pending_requests", limit: MAX_PENDING_PER_CLIENT } },
      );
    }
    if (this.#pending.size >= MAX_PENDING_REQUESTS) {
      throw new ConnectorError(
        "too_many_in_flight",
        `at most ${MAX_PENDING_REQUESTS} approval requests may be pending`,
      );
    }
  }

  #rememberTitle(environmentId: string, threadId: string, title: string): void {
    const key = `${environmentId}\u0000${threadId}`;
    this.#threadTitles.delete(key);
    this.#threadTitles.set(key, title);
    // Bounded like everything the gate keeps in memory: the oldest titles go first.
    if (this.#threadTitles.size > 4096) {
      const oldest = this.#threadTitles.keys().next();
      if (oldest.done !== true) this.#threadTitles.delete(oldest.value);
    }
  }

  #prune(): void {
    for (const pending of [...this.#pending.values()]) {
      if (this.#expired(pending)) this.#end(pending.id, "expired");
    }
  }
}

/**
 * The ask with its project writes proposed too: each ticks its environment and action, and a
 * move or a delete its project, so the page ticks what the client named.
 */
function withProjectWrites(ask: ApprovalAsk): ApprovalAsk {
  const writes = ask.projectWrites ?? [];
  if (writes.length === 0) return ask;
  const projects = writes.flatMap((write) => (write.projectId === undefined ? [] : [write.projectId]));
  return {
    ...ask,
    environments: [...(ask.environments ?? []), ...writes.map((write) => write.environment)],
    actions: [...(ask.actions ?? []), ...writes.map((write) => write.action)],
    ...(projects.length === 0 ? {} : { projects: [...(ask.projects ?? []), ...projects] }),
  };
}

/** The threads a proposal names that the inventory lists, with their titles and environments. */
function namedThreadsOf(proposal: Proposal | undefined, inventory: InventoryView): NamedThread[] {
  const wanted = new Set(proposal?.threads ?? []);
  if (wanted.size === 0) return [];
  const aliases = new Map(inventory.scope.environments.map((grant) => [grant.environmentId, grant.alias]));
  return inventory.threads
    .filter((thread) => wanted.has(thread.id))
    .map((thread) => ({
      threadId: thread.id,
      title: thread.title,
      environmentId: thread.environmentId,
      alias: aliases.get(thread.environmentId) ?? thread.environmentId,
      projectId: thread.projectId,
    }));
}

/**
 * The scope an approval grants when the person changes nothing: the client's proposal as the gate
 * ticked it, limited to the threads it named. A request that proposed nothing shows its whole scope.
 */
function shownScope(scope: LeaseScope, preselected: Preselection, named: readonly NamedThread[]): LeaseScope {
  if (preselected.environments.length === 0) return scope;
  const narrowed = narrowScope(scope, {
    environments: preselected.environments.map((chosen) => ({
      environmentId: chosen.environmentId,
      projectIds: [...chosen.projectIds],
      actions: [...chosen.actions],
    })),
  });
  return narrowed === null ? scope : limitToThreads(narrowed, named, false);
}

/** The fingerprint of a pending request with this scope (its own, or the narrowed one approved). */
function fingerprintOf(pending: PendingRequest, scope: LeaseScope): string {
  return requestFingerprint(
    {
      requestId: pending.id,
      expiresAt: pending.expiresAt,
      leaseMinutes: LEASE_DURATION_MINUTES,
      ...(pending.purpose === undefined ? {} : { purpose: pending.purpose }),
      ...(pending.client === undefined ? {} : { client: pending.client }),
    },
    scope,
  );
}

/**
 * Whose budget a request counts against: the bridge process that asks, else the name the client
 * gives, else one shared "unnamed" client. None of these is verified (ADR 0028).
 */
function clientKeyOf(ask: ApprovalAsk): string {
  if (ask.bridge !== undefined) return `bridge:${ask.bridge}`;
  const name = cleanText(ask.client?.name, 128);
  return name === undefined ? "unnamed" : `client:${name}`;
}

function clientOf(client: ApprovalAsk["client"]): ClientInfo | undefined {
  if (client === undefined) return undefined;
  const name = cleanText(client.name, 128);
  if (name === undefined) return undefined;
  const version = cleanText(client.version, 64);
  const signedInAt = signedInAtOf(client.signedInAt);
  return {
    name,
    ...(version === undefined ? {} : { version }),
    ...(signedInAt === undefined ? {} : { signedInAt }),
  };
}

/** A sign-in time the page can show: a valid instant, normalized; anything else is dropped. */
function signedInAtOf(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const time = Date.parse(value);
  return Number.isFinite(time) ? new Date(time).toISOString() : undefined;
}
