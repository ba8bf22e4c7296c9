/**
 * The verdict a lease scope gives one request, as a pure function
 * the gate can wrap with its own state (open/closed, expiry). The grant must match both the
 * environmentId and the destination, list the action, and cover every project.
 */
import {
  approvedWorkspaceRoots,
  boundWriteFor,
  findGrant,
  type LeaseScope,
  runtimeCeilingRefusal,
  threadModeCeilingRefusal,
  unboundProjectWrite,
} from "../actions/index.js";
import type { LeaseRequest, LeaseVerdict } from "./types.js";

/**
 * `launched`: threads the lease created itself (a launch, a fork), which a lease limited to named
 * threads admits too (ADR 0041); the gate keeps them per lease.
 */
export function scopeVerdict(
  scope: LeaseScope,
  request: LeaseRequest,
  launched: ReadonlySet<string> = new Set(),
): LeaseVerdict {
  const grant = findGrant(scope, request.environmentId, request.destination);
  if (grant === undefined) {
    return {
      ok: false,
      code: "environment_not_in_lease",
      message: `environment ${request.environmentId} is not in this lease`,
    };
  }
  if (!grant.actions.includes(request.action)) {
    return { ok: false, code: "scope_denied", message: `the lease does not grant ${request.action}` };
  }
  // The ceiling before any I/O: a launch above it never reaches the fresh reads or the journal.
  const aboveCeiling =
    runtimeCeilingRefusal(request.action, request.runtimeMode, scope.runtimeMode) ??
    threadModeCeilingRefusal(request.action, request.threadRuntimeMode, scope.runtimeMode);
  if (aboveCeiling !== null) {
    return {
      ok: false,
      code: "runtime_mode_above_lease",
      message: aboveCeiling.message,
      ...(aboveCeiling.details === undefined ? {} : { details: aboveCeiling.details }),
    };
  }
  const unnamed = threadsOutside(grant.threadIds, request.threadIds ?? [], launched);
  if (unnamed.length > 0) {
    return {
      ok: false,
      code: "scope_denied",
      message:
        `thread ${unnamed.join(", ")} is not one the lease was approved for (only the threads the client named); ` +
        "ask again with t3_pedir_aprovacao naming it in threads, or have the person widen the lease to its whole project",
    };
  }
  // A create's folder and a forced delete are admitted only as the approval page named them.
  const unbound = unboundProjectWrite(grant.projectWrites, request.projectWrite ?? null);
  if (unbound !== null) return { ok: false, code: "scope_denied", message: unbound };
  const granted = new Set(grant.projects.map((project) => project.id));
  const outside = request.projectIds.filter((projectId) => !granted.has(projectId));
  if (outside.length > 0) {
    return {
      ok: false,
      code: "scope_denied",
      message: `project ${outside.join(", ")} is not in this lease`,
    };
  }
  const bound =
    request.projectWrite === undefined ? undefined : boundWriteFor(grant.projectWrites, request.projectWrite);
  return {
    ok: true,
    runtimeCeiling: scope.runtimeMode,
    ...(bound?.action === "project.delete" ? { boundThreadCount: bound.threadCount } : {}),
    approvedWorkspaceRoots: approvedWorkspaceRoots(
      grant,
      request.projectIds.length === 0 ? undefined : request.projectIds,
    ),
  };
}

/** The threads a thread-limited grant does not admit (none when the grant covers whole projects). */
function threadsOutside(
  allowed: readonly string[] | undefined,
  touched: readonly string[],
  launched: ReadonlySet<string>,
): string[] {
  if (allowed === undefined) return [];
  const named = new Set(allowed);
  return touched.filter((threadId) => !named.has(threadId) && !launched.has(threadId));
}
