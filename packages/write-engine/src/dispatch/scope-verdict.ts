/**
 * The verdict a lease scope gives one request, as a pure function
 * the gate can wrap with its own state (open/closed, expiry). The grant must match both the
 * environmentId and the destination, list the action, and cover every project.
 */
import {
  approvedWorkspaceRoots,
  findGrant,
  type LeaseScope,
  runtimeCeilingRefusal,
  threadModeCeilingRefusal,
} from "../actions/index.js";
import type { LeaseRequest, LeaseVerdict } from "./types.js";

export function scopeVerdict(scope: LeaseScope, request: LeaseRequest): LeaseVerdict {
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
  const granted = new Set(grant.projects.map((project) => project.id));
  const outside = request.projectIds.filter((projectId) => !granted.has(projectId));
  if (outside.length > 0) {
    return {
      ok: false,
      code: "scope_denied",
      message: `project ${outside.join(", ")} is not in this lease`,
    };
  }
  return {
    ok: true,
    runtimeCeiling: scope.runtimeMode,
    approvedWorkspaceRoots: approvedWorkspaceRoots(
      grant,
      request.projectIds.length === 0 ? undefined : request.projectIds,
    ),
  };
}
