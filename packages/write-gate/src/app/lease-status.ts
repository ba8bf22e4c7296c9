/** @module What the page (and the relay's status op) shows of the lease: never a secret. */
import type { LeaseScope } from "@t3-connector/write-engine/actions";
import type { LeaseWrite } from "../contract.js";
import type { GateLeaseKeeper } from "../lease/index.js";

export type LeaseStatus =
  | { readonly active: false }
  | {
      readonly active: true;
      readonly leaseId: string;
      readonly grantedAt: string;
      readonly expiresAt: string;
      readonly remainingMs: number;
      readonly scope: LeaseScope;
      readonly scopeFingerprint: string;
      readonly writes: readonly LeaseWrite[];
      /** What the holding client says it is (unverified): only its bridge can use the lease. */
      readonly client?: { readonly name: string; readonly version?: string };
    };

export function leaseStatus(keeper: GateLeaseKeeper): LeaseStatus {
  const lease = keeper.current();
  if (lease === null) return { active: false };
  return {
    active: true,
    leaseId: lease.leaseId,
    grantedAt: lease.grantedAt,
    expiresAt: lease.expiresAt,
    remainingMs: keeper.remainingMs(),
    scope: lease.scope,
    scopeFingerprint: lease.scopeFingerprint,
    writes: keeper.writes(),
    ...(lease.client === undefined ? {} : { client: lease.client }),
  };
}
