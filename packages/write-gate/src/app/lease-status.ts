/** @module What the page shows of each open lease: never a secret. */
import type { LeaseScope } from "@t3-connector/write-engine/actions";
import type { LeaseWrite } from "../contract.js";
import type { GateLeaseKeeper } from "../lease/lease-keeper.js";

/** One open lease as the page and the relay's status answers show it. */
export interface OpenLeaseStatus {
  readonly active: true;
  readonly leaseId: string;
  readonly grantedAt: string;
  readonly expiresAt: string;
  readonly remainingMs: number;
  readonly scope: LeaseScope;
  readonly scopeFingerprint: string;
  readonly writes: readonly LeaseWrite[];
  /** What the holding client says it is (unverified): only its bridge can use the lease. */
  readonly client?: { readonly name: string; readonly version?: string; readonly signedInAt?: string };
}

export type LeaseStatus = { readonly active: false } | OpenLeaseStatus;

/** The status of one lease by id: `{active: false}` once it closed. */
export function leaseStatus(keeper: GateLeaseKeeper, leaseId: string): LeaseStatus {
  const lease = keeper.get(leaseId);
  if (lease === null) return { active: false };
  return {
    active: true,
    leaseId: lease.leaseId,
    grantedAt: lease.grantedAt,
    expiresAt: lease.expiresAt,
    remainingMs: keeper.remainingMs(leaseId),
    scope: lease.scope,
    scopeFingerprint: lease.scopeFingerprint,
    writes: keeper.writes(leaseId),
    ...(lease.client === undefined ? {} : { client: lease.client }),
  };
}

/** Every open lease, oldest first. */
export function openLeases(keeper: GateLeaseKeeper): OpenLeaseStatus[] {
  return keeper.list().flatMap((lease) => {
    const status = leaseStatus(keeper, lease.leaseId);
    return status.active ? [status] : [];
  });
}
