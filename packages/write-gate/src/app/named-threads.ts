/**
 * @module The threads a request or a lease names, whose change summaries the approval pages show
 * (ADR 0068): a request's named threads; a lease's limited threads and the threads its writes
 * touched, newest write first. Taken from the gate's own records, never from the page's body.
 */
import type { GateApprovalDesk } from "../approval/index.js";
import type { GateLeaseKeeper } from "../lease/lease-keeper.js";
import type { ThreadRef } from "./thread-changes.js";

/** The named threads of a live request; none once it is decided, expired or unknown. */
export function requestThreadRefs(desk: GateApprovalDesk, requestId: string | undefined): ThreadRef[] {
  if (requestId === undefined) return [];
  try {
    return desk
      .view(requestId)
      .namedThreads.map(({ environmentId, threadId }) => ({ environmentId, threadId }));
  } catch {
    return [];
  }
}

/** One open lease's threads: those it is limited to, then those its writes touched. */
export function leaseThreadRefs(keeper: GateLeaseKeeper, leaseId: string): ThreadRef[] {
  const lease = keeper.get(leaseId);
  if (lease === null) return [];
  const limited = lease.scope.environments.flatMap((grant) =>
    (grant.threadIds ?? []).map((threadId) => ({ environmentId: grant.environmentId, threadId })),
  );
  const written = [...keeper.writes(leaseId)]
    .reverse()
    .flatMap((write) =>
      write.threadId === undefined ? [] : [{ environmentId: write.environmentId, threadId: write.threadId }],
    );
  return distinct([...limited, ...written]);
}

export function distinct(refs: readonly ThreadRef[]): ThreadRef[] {
  return [...new Map(refs.map((ref) => [`${ref.environmentId}\u0000${ref.threadId}`, ref])).values()];
}
