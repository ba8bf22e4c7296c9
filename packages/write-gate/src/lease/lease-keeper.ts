/**
 * @module The open leases, in memory, one per approved request (ADR 0028): each bound to the
 * client that asked, with its own scope, ceiling, expiry and writes. A restarted gate starts closed.
 * Expiry is checked against two deadlines, a monotonic one and a wall-clock one, so that neither
 * a wall-clock jump back nor a suspended process can stretch a lease past 60 minutes.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { type Clock, ConnectorError } from "@t3-connector/core";
import { LEASE_DURATION_MINUTES, type LeaseScope } from "@t3-connector/write-engine/actions";
import type { LeaseFacts } from "@t3-connector/write-engine/engine";
import type { ActiveLease, LeaseKeeper, LeaseWrite } from "../contract.js";

export const LEASE_TTL_MS = LEASE_DURATION_MINUTES * 60_000;
/** The page lists the latest writes; older ones stay in the audit log. */
export const MAX_LISTED_WRITES = 200;
/** Closed leases the page keeps showing after a revoke or expiry. */
export const LEASE_HISTORY_LENGTH = 5;
/**
 * Leases open at once. Each client holds at most one (asking for more replaces it), so this is a
 * memory bound, not a grant: an approval past it is refused `lease_limit_reached`.
 */
export const MAX_OPEN_LEASES = 16;

/** A lease that closed, with the writes made under it (newest first). */
export interface ClosedLease {
  readonly leaseId: string;
  readonly client?: GrantedLease["client"];
  readonly grantedAt: string;
  readonly closedAt: string;
  readonly closeReason: string;
  readonly scopeFingerprint: string;
  readonly writes: readonly LeaseWrite[];
}

export interface GrantedLease extends ActiveLease {
  /** The passkey that approved it. */
  readonly credentialId: string;
  /**
   * SHA-256 of the secret handed only to the bridge call that created the request (ADR 0022):
   * every relay call under the lease must present it. Absent only for leases granted directly
   * through the keeper (the test harness seam); the approval desk always sets it.
   */
  readonly holderHash?: string;
  /** What the requesting client says it is (unverified), for the page; an OAuth session's sign-in time. */
  readonly client?: { readonly name: string; readonly version?: string; readonly signedInAt?: string };
}

/** The hash a lease keeps of its holder's secret. */
export function holderHashOf(secret: string): string {
  return createHash("sha256").update(secret, "utf8").digest("hex");
}

interface OpenLease {
  readonly lease: GrantedLease;
  readonly monotonicDeadline: number;
  readonly wallDeadline: number;
  writes: LeaseWrite[];
  /** Threads this lease created (a launch, a fork): a thread-limited lease admits them (ADR 0041). */
  readonly launched: Set<string>;
  /** Aborted when the lease ends, so a write waiting in the engine sends nothing after that. */
  readonly ended: AbortController;
  /** What the engine reads of it, built once: nothing in it changes while the lease is open. */
  readonly facts: LeaseFacts;
}

/** Threads one lease may have launched and keep writing to; a memory bound, like its write list. */
const MAX_LAUNCHED_THREADS = 256;

/** A lease that opened (`granted`) or closed (any other reason: `revoked`, `ended`, `expired`…). */
export interface LeaseChange {
  readonly lease: GrantedLease;
  readonly open: boolean;
  readonly reason: string;
}

type Listener = (change: LeaseChange) => void;

/**
 * Implements the boundary's `LeaseKeeper`. `epoch` moves when every
 * lease closes at once (revoke all, an audit or journal failure), so an approval that started
 * before it can tell that it must not grant; ending one lease leaves other approvals alone.
 */
export class GateLeaseKeeper implements LeaseKeeper {
  readonly #clock: Clock;
  readonly #open = new Map<string, OpenLease>();
  #epoch = 0;
  readonly #listeners = new Set<Listener>();
  readonly #closeAllListeners = new Set<(reason: string) => void>();
  readonly #writeListeners = new Set<(write: LeaseWrite) => void>();
  #history: ClosedLease[] = [];

  constructor(options: { clock: Clock }) {
    this.#clock = options.clock;
  }

  /** Moves on every close of all leases; an approval compares it before and after its crypto await. */
  get epoch(): number {
    return this.#epoch;
  }

  /** The open lease with this id, or null (closed, expired, never granted). */
  get(leaseId: string): GrantedLease | null {
    const open = this.#live(leaseId);
    return open === undefined ? null : open.lease;
  }

  /** Every open lease, oldest first. */
  list(): GrantedLease[] {
    return [...this.#open.keys()].flatMap((leaseId) => {
      const lease = this.get(leaseId);
      return lease === null ? [] : [lease];
    });
  }

  /**
   * The open lease whose holder presented `secret`, or null. A lease granted without a holder (the
   * test seam) is held by any caller, so it answers when no holder's lease matches.
   */
  heldLease(secret: string | undefined): GrantedLease | null {
    const open = this.list();
    const own = open.find((lease) => lease.holderHash !== undefined && this.heldBy(lease.leaseId, secret));
    return own ?? open.find((lease) => lease.holderHash === undefined) ?? null;
  }

  /** Milliseconds left on a lease by the nearer of its two deadlines, 0 when closed. */
  remainingMs(leaseId: string): number {
    const open = this.#live(leaseId);
    if (open === undefined) return 0;
    return Math.max(
      0,
      Math.min(open.monotonicDeadline - this.#clock.monotonic(), open.wallDeadline - this.#clock.now()),
    );
  }

  /** Opens a lease; only the approval desk calls this, after a verified passkey assertion. */
  grant(input: {
    scope: LeaseScope;
    scopeFingerprint: string;
    credentialId: string;
    holderHash?: string;
    client?: GrantedLease["client"];
  }): GrantedLease {
    if (this.list().length >= MAX_OPEN_LEASES) {
      throw new ConnectorError(
        "lease_limit_reached",
        `at most ${MAX_OPEN_LEASES} leases may be open at once: end one on the page first`,
        { details: { limit: MAX_OPEN_LEASES } },
      );
    }
    const now = this.#clock.now();
    const lease: GrantedLease = {
      leaseId: randomBytes(32).toString("base64url"),
      scope: input.scope,
      scopeFingerprint: input.scopeFingerprint,
      credentialId: input.credentialId,
      ...(input.holderHash === undefined ? {} : { holderHash: input.holderHash }),
      ...(input.client === undefined ? {} : { client: input.client }),
      grantedAt: new Date(now).toISOString(),
      expiresAt: new Date(now + LEASE_TTL_MS).toISOString(),
    };
    const monotonicDeadline = this.#clock.monotonic() + LEASE_TTL_MS;
    const wallDeadline = now + LEASE_TTL_MS;
    const launched = new Set<string>();
    const ended = new AbortController();
    this.#open.set(lease.leaseId, {
      lease,
      monotonicDeadline,
      wallDeadline,
      writes: [],
      launched,
      ended,
      facts: {
        leaseId: lease.leaseId,
        scope: lease.scope,
        launched,
        ended: ended.signal,
        deadline: { monotonic: monotonicDeadline, wall: wallDeadline },
      },
    });
    this.#emit({ lease, open: true, reason: "granted" });
    return lease;
  }

  facts(leaseId: string): LeaseFacts | null {
    return this.#live(leaseId)?.facts ?? null;
  }

  /** A thread a completed write under `leaseId` created: later writes under it may touch it. */
  recordLaunchedThread(leaseId: string, threadId: string): void {
    const open = this.#live(leaseId);
    if (open === undefined || open.launched.size >= MAX_LAUNCHED_THREADS) return;
    open.launched.add(threadId);
  }

  /**
   * Whether `secret` is the holder's secret of the open lease `leaseId`. A lease granted without a
   * holder (the test seam) is held by any caller of the relay.
   */
  heldBy(leaseId: string, secret: string | undefined): boolean {
    const lease = this.get(leaseId);
    if (lease === null) return false;
    if (lease.holderHash === undefined) return true;
    if (secret === undefined) return false;
    const presented = Buffer.from(holderHashOf(secret), "hex");
    return timingSafeEqual(presented, Buffer.from(lease.holderHash, "hex"));
  }

  /** Records a write under the lease it names; a write under a closed lease is not listed. */
  recordWrite(write: LeaseWrite): void {
    const open = this.#open.get(write.leaseId);
    if (open === undefined) return;
    open.writes.push(write);
    if (open.writes.length > MAX_LISTED_WRITES) open.writes.splice(0, open.writes.length - MAX_LISTED_WRITES);
    for (const listener of [...this.#writeListeners]) {
      try {
        listener(write);
      } catch {
        // The page's nudges are informational; the journal is the record of truth.
      }
    }
  }

  /** One open lease's writes, oldest first. */
  writes(leaseId: string): readonly LeaseWrite[] {
    return [...(this.#live(leaseId)?.writes ?? [])];
  }

  /** The last closed leases, newest first. A restarted gate starts with none (memory only). */
  history(): readonly ClosedLease[] {
    return [...this.#history];
  }

  /** Closes one lease (the page's End, a replacement, its expiry); the others stay open. */
  end(leaseId: string, reason: string): boolean {
    const open = this.#open.get(leaseId);
    if (open === undefined) return false;
    this.#open.delete(leaseId);
    open.ended.abort(reason);
    this.#history.unshift({
      leaseId,
      ...(open.lease.client === undefined ? {} : { client: open.lease.client }),
      grantedAt: open.lease.grantedAt,
      closedAt: new Date(this.#clock.now()).toISOString(),
      closeReason: reason,
      scopeFingerprint: open.lease.scopeFingerprint,
      writes: [...open.writes].reverse(),
    });
    this.#history.length = Math.min(this.#history.length, LEASE_HISTORY_LENGTH);
    this.#emit({ lease: open.lease, open: false, reason });
    return true;
  }

  /** Closes every lease (Revoke all, audit or journal failure) and every approval in flight. */
  closeAll(reason: string): void {
    this.#epoch += 1;
    for (const leaseId of [...this.#open.keys()]) this.end(leaseId, reason);
    for (const listener of [...this.#closeAllListeners]) listener(reason);
  }

  /** Told when every lease closes at once, leases open or not (the desk drops its pending approvals). */
  onCloseAll(listener: (reason: string) => void): () => void {
    this.#closeAllListeners.add(listener);
    return () => this.#closeAllListeners.delete(listener);
  }

  /** Told of every write recorded under an open lease. */
  onWrite(listener: (write: LeaseWrite) => void): () => void {
    this.#writeListeners.add(listener);
    return () => this.#writeListeners.delete(listener);
  }

  /** Told of every lease granted and every lease closed, one change at a time. */
  onChange(listener: Listener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** The open entry, closing it first when either deadline has passed. */
  #live(leaseId: string): OpenLease | undefined {
    const open = this.#open.get(leaseId);
    if (open === undefined) return undefined;
    if (this.#clock.monotonic() >= open.monotonicDeadline || this.#clock.now() >= open.wallDeadline) {
      this.end(leaseId, "expired");
      return undefined;
    }
    return open;
  }

  #emit(change: LeaseChange): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener(change);
      } catch {
        // A failing listener must not keep a lease open or stop the others from hearing the close.
      }
    }
  }
}
