/**
 * @module The one in-memory lease. A restarted gate starts closed.
 * Expiry is checked against two deadlines, a monotonic one and a wall-clock one, so that neither
 * a wall-clock jump back nor a suspended process can stretch a lease past 60 minutes.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { Clock } from "@t3-connector/core";
import { LEASE_DURATION_MINUTES, type LeaseScope } from "@t3-connector/write-engine/actions";
import {
  type LeaseRequest,
  type LeaseVerdict,
  scopeVerdict,
  type UncertainSend,
} from "@t3-connector/write-engine/engine";
import type { ActiveLease, LeaseKeeper, LeaseWrite } from "../contract.js";

export const LEASE_TTL_MS = LEASE_DURATION_MINUTES * 60_000;
/** The page lists the latest writes; older ones stay in the audit log. */
export const MAX_LISTED_WRITES = 200;
/** Closed leases the page keeps showing after a revoke or expiry. */
export const LEASE_HISTORY_LENGTH = 5;

/** A lease that closed, with the writes made under it (newest first). */
export interface ClosedLease {
  readonly leaseId: string;
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
  /** What the requesting client says it is (unverified), for the page. */
  readonly client?: { readonly name: string; readonly version?: string };
}

/** The hash a lease keeps of its holder's secret. */
export function holderHashOf(secret: string): string {
  return createHash("sha256").update(secret, "utf8").digest("hex");
}

interface OpenLease {
  readonly lease: GrantedLease;
  readonly monotonicDeadline: number;
  readonly wallDeadline: number;
}

type Listener = (lease: ActiveLease | null, reason: string) => void;

/**
 * Implements the boundary's `LeaseKeeper` (also core's `LeaseCheck`). `epoch` moves on every
 * close, so an approval that started before a revoke can tell that it must not grant.
 */
export class GateLeaseKeeper implements LeaseKeeper {
  readonly #clock: Clock;
  #open: OpenLease | null = null;
  #writes: LeaseWrite[] = [];
  #epoch = 0;
  readonly #listeners = new Set<Listener>();
  readonly #closeListeners = new Set<(reason: string) => void>();
  readonly #writeListeners = new Set<(write: LeaseWrite) => void>();
  #history: ClosedLease[] = [];

  constructor(options: { clock: Clock }) {
    this.#clock = options.clock;
  }

  /** Moves on every close; an approval compares it before and after its crypto await. */
  get epoch(): number {
    return this.#epoch;
  }

  current(): GrantedLease | null {
    const open = this.#open;
    if (open === null) return null;
    if (this.#clock.monotonic() >= open.monotonicDeadline || this.#clock.now() >= open.wallDeadline) {
      this.closeAll("expired");
      return null;
    }
    return open.lease;
  }

  /** Milliseconds left by the nearer of the two deadlines, 0 when closed. */
  remainingMs(): number {
    const open = this.#open;
    if (this.current() === null || open === null) return 0;
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
    if (this.current() !== null) throw new Error("a lease is already open");
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
    this.#open = {
      lease,
      monotonicDeadline: this.#clock.monotonic() + LEASE_TTL_MS,
      wallDeadline: now + LEASE_TTL_MS,
    };
    this.#writes = [];
    this.#emit(lease, "granted");
    return lease;
  }

  check(request: LeaseRequest): LeaseVerdict {
    const lease = this.current();
    if (lease === null || lease.leaseId !== request.leaseId) {
      return { ok: false, code: "lease_closed", message: "no open lease with this id" };
    }
    return scopeVerdict(lease.scope, request);
  }

  /**
   * Whether `secret` is the holder's secret of the open lease `leaseId`. A lease granted without a
   * holder (the test seam) is held by any caller of the relay.
   */
  heldBy(leaseId: string, secret: string | undefined): boolean {
    const lease = this.current();
    if (lease === null || lease.leaseId !== leaseId) return false;
    if (lease.holderHash === undefined) return true;
    if (secret === undefined) return false;
    const presented = Buffer.from(holderHashOf(secret), "hex");
    return timingSafeEqual(presented, Buffer.from(lease.holderHash, "hex"));
  }

  onUncertainSend(_event: UncertainSend): void {
    this.closeAll("uncertain_send");
  }

  recordWrite(write: LeaseWrite): void {
    if (this.#open === null) return;
    this.#writes.push(write);
    if (this.#writes.length > MAX_LISTED_WRITES)
      this.#writes.splice(0, this.#writes.length - MAX_LISTED_WRITES);
    for (const listener of [...this.#writeListeners]) {
      try {
        listener(write);
      } catch {
        // The page's nudges are informational; the journal is the record of truth.
      }
    }
  }

  /** The open lease's writes, oldest first. */
  writes(): readonly LeaseWrite[] {
    return [...this.#writes];
  }

  /** The last closed leases, newest first. A restarted gate starts with none (memory only). */
  history(): readonly ClosedLease[] {
    return [...this.#history];
  }

  closeAll(reason: string): void {
    this.#epoch += 1;
    const open = this.#open;
    const wasOpen = open !== null;
    if (open !== null) {
      this.#history.unshift({
        leaseId: open.lease.leaseId,
        grantedAt: open.lease.grantedAt,
        closedAt: new Date(this.#clock.now()).toISOString(),
        closeReason: reason,
        scopeFingerprint: open.lease.scopeFingerprint,
        writes: [...this.#writes].reverse(),
      });
      this.#history.length = Math.min(this.#history.length, LEASE_HISTORY_LENGTH);
    }
    this.#open = null;
    this.#writes = [];
    for (const listener of [...this.#closeListeners]) listener(reason);
    if (wasOpen) this.#emit(null, reason);
  }

  /** Told on every close, lease open or not (the desk drops its pending approvals). */
  onClose(listener: (reason: string) => void): () => void {
    this.#closeListeners.add(listener);
    return () => this.#closeListeners.delete(listener);
  }

  /** Told of every write recorded under the open lease. */
  onWrite(listener: (write: LeaseWrite) => void): () => void {
    this.#writeListeners.add(listener);
    return () => this.#writeListeners.delete(listener);
  }

  onChange(listener: Listener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #emit(lease: ActiveLease | null, reason: string): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener(lease, reason);
      } catch {
        // A failing listener must not keep a lease open or stop the others from hearing the close.
      }
    }
  }
}
