import type { ActiveLease, LeaseKeeper } from "../contract.js";
import type { AuditLog } from "./audit-log.js";
import type { AuditEvent } from "./events.js";

/** The reason string the LeaseKeeper gives decides the event; anything unknown is a plain close. */
function closingEvent(leaseId: string, reason: string): AuditEvent {
  const lower = reason.toLowerCase();
  if (lower.includes("expire")) return { event: "lease_expired", leaseId, reason };
  if (lower.includes("revoke")) return { event: "lease_revoked", leaseId, reason };
  return { event: "lease_closed", leaseId, reason };
}

function grantedEvent(lease: ActiveLease): AuditEvent {
  return {
    event: "lease_granted",
    leaseId: lease.leaseId,
    scopeFingerprint: lease.scopeFingerprint,
    environments: lease.scope.environments.map((grant) => grant.environmentId),
    expiresAt: lease.expiresAt,
  };
}

/**
 * Audits every lease change the keeper reports (granted, expired, revoked, ended, closed), each
 * naming its lease. The reason is the keeper's own short code, never user input. Returns the
 * unsubscribe function.
 */
export function auditLeaseChanges(keeper: LeaseKeeper, audit: AuditLog): () => void {
  return keeper.onChange(({ lease, open, reason }) => {
    const event = open ? grantedEvent(lease) : closingEvent(lease.leaseId, reason);
    // A failed append closes every lease through the log's own onFailure.
    audit.append(event).catch(() => undefined);
  });
}
