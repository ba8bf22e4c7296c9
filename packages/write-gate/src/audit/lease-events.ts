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
 * Audits every lease change the keeper reports (granted, expired, revoked, closed). The reason is
 * the keeper's own short code, never user input. Returns the unsubscribe function.
 */
export function auditLeaseChanges(keeper: LeaseKeeper, audit: AuditLog): () => void {
  let previous: ActiveLease | null = keeper.current();
  return keeper.onChange((lease, reason) => {
    const events: AuditEvent[] = [];
    if (previous !== null && previous.leaseId !== lease?.leaseId) {
      events.push(closingEvent(previous.leaseId, reason));
    }
    if (lease !== null && lease.leaseId !== previous?.leaseId) events.push(grantedEvent(lease));
    previous = lease;
    for (const event of events) {
      // A failed append closes every lease through the log's own onFailure.
      audit.append(event).catch(() => undefined);
    }
  });
}
