/**
 * @module The scope fingerprint shown on the page and the narrowing the human may apply: a
 * selection can only remove environments, projects and actions from the pending scope.
 */
import { canonicalJson, sha256Hex } from "@t3-connector/core";
import {
  type EnvironmentGrant,
  type LeaseScope,
  parseLeaseScope,
  RUNTIME_MODES,
  runtimeModeRank,
} from "@t3-connector/write-engine/actions";
import { z } from "zod";

/** The fingerprint of a scope alone (leases granted through the keeper's test seam). */
export function scopeFingerprint(scope: LeaseScope): string {
  return sha256Hex(canonicalJson(scope));
}

/** What, besides the scope, tells one approval request from another (ADR 0028). */
export interface RequestFacts {
  readonly requestId: string;
  /** The request's own expiry; the lease it may become lasts `leaseMinutes` from the approval. */
  readonly expiresAt: string;
  readonly leaseMinutes: number;
  readonly purpose?: string;
  readonly client?: { readonly name: string; readonly version?: string };
}

/**
 * The fingerprint of the whole request the page shows: who asks, why, until when, for how long,
 * and the scope (with its ceiling). Two requests never share one, even with the same scope; a
 * narrowed selection gets its own, which the lease then keeps.
 */
export function requestFingerprint(facts: RequestFacts, scope: LeaseScope): string {
  return sha256Hex(
    canonicalJson({
      request: {
        requestId: facts.requestId,
        expiresAt: facts.expiresAt,
        leaseMinutes: facts.leaseMinutes,
        purpose: facts.purpose ?? null,
        client: facts.client ?? null,
      },
      scope,
    }),
  );
}

const idList = z.array(z.string().min(1).max(256)).max(10_000);

/** What the page sends: per environment kept, the projects and actions kept. */
export const selectionSchema = z.strictObject({
  environments: z
    .array(z.strictObject({ environmentId: z.string().min(1).max(256), projectIds: idList, actions: idList }))
    .min(1)
    .max(256),
  /** The runtime ceiling kept; at most the request's own (absent: the request's). */
  runtimeCeiling: z.enum(RUNTIME_MODES).optional(),
  /**
   * The person widened a request that names threads to every thread of the kept projects (the
   * page's control); absent or false, the lease admits only the named threads (ADR 0041).
   */
  wholeProjects: z.boolean().optional(),
});
export type Selection = z.output<typeof selectionSchema>;

/** The narrowed scope, or null when the selection names anything outside `scope` or keeps nothing. */
export function narrowScope(scope: LeaseScope, selection: Selection): LeaseScope | null {
  const ceiling = selection.runtimeCeiling ?? scope.runtimeMode;
  // Narrowing only: a selection can never raise the ceiling the request showed.
  if (runtimeModeRank(ceiling) > runtimeModeRank(scope.runtimeMode)) return null;
  const seen = new Set<string>();
  const grants: EnvironmentGrant[] = [];
  for (const kept of selection.environments) {
    if (seen.has(kept.environmentId)) return null;
    seen.add(kept.environmentId);
    const grant = scope.environments.find((candidate) => candidate.environmentId === kept.environmentId);
    if (grant === undefined) return null;
    const projectIds = new Set(kept.projectIds);
    const actions = new Set(kept.actions);
    const projects = grant.projects.filter((project) => projectIds.has(project.id));
    const keptActions = grant.actions.filter((action) => actions.has(action));
    if (projects.length !== projectIds.size || keptActions.length !== actions.size) return null;
    if (projects.length === 0 || keptActions.length === 0) return null;
    const readable = new Set(grant.readProjectIds);
    grants.push({
      ...grant,
      projects,
      actions: keptActions,
      readProjectIds: projects.map((project) => project.id).filter((id) => readable.has(id)),
    });
  }
  // Parsing again keeps the lease exactly in core's schema (sorted, unique, non-empty).
  try {
    return parseLeaseScope({
      ...scope,
      runtimeMode: ceiling,
      environments: grants.sort((a, b) => (a.alias < b.alias ? -1 : 1)),
    });
  } catch {
    return null;
  }
}

/** One thread a request names, as the page shows it and the lease limits to it (ADR 0041). */
export interface NamedThread {
  readonly threadId: string;
  readonly title: string;
  readonly environmentId: string;
  readonly alias: string;
  readonly projectId: string;
}

/**
 * The scope limited to the named threads: each kept environment admits only the named threads in
 * its kept projects (none of them: no existing thread at all). Unchanged when nothing is named or
 * the person widened the lease to whole projects.
 */
export function limitToThreads(
  scope: LeaseScope,
  named: readonly NamedThread[],
  wholeProjects: boolean,
): LeaseScope {
  if (named.length === 0 || wholeProjects) return scope;
  return parseLeaseScope({
    ...scope,
    environments: scope.environments.map((grant) => {
      const projects = new Set(grant.projects.map((project) => project.id));
      const threadIds = named
        .filter((thread) => thread.environmentId === grant.environmentId && projects.has(thread.projectId))
        .map((thread) => thread.threadId);
      return { ...grant, threadIds: [...new Set(threadIds)].sort() };
    }),
  });
}
