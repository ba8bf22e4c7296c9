/**
 * Reads under a lease, kept small: the shell rows of the lease's projects in one
 * environment, or one thread inside them. The lease is checked before and after the read; a result
 * fetched while the lease closed is discarded. Other projects and their threads do not exist here.
 * Archived threads are not in the shell (current T3, 0.0.31): a listing that asks for them, and a
 * read of a thread the shell does not list, add the archived shell snapshot.
 */
import { ConnectorError } from "@t3-connector/core";
import { addArchivedThreads, type EnvironmentRegistry } from "@t3-connector/core/environments";
import { fetchThreadWindow, type ProjectShell } from "@t3-connector/core/t3";
import type { EnvironmentGrant } from "@t3-connector/write-engine/actions";
import type { LeasedReadOp, RelayResultOf } from "@t3-connector/write-engine/relay-contract";
import type { LeaseKeeper } from "../contract.js";

export const LEASED_READ_TIMEOUT_MS = 15_000;

function leasedGrant(keeper: LeaseKeeper, leaseId: string, environmentId: string): EnvironmentGrant {
  const lease = keeper.get(leaseId);
  if (lease === null) {
    throw new ConnectorError("lease_closed", "no open lease has this id");
  }
  const grant = lease.scope.environments.find((candidate) => candidate.environmentId === environmentId);
  if (grant === undefined) {
    throw new ConnectorError("environment_not_in_lease", `environment ${environmentId} is not in this lease`);
  }
  if (grant.readProjectIds.length === 0) {
    throw new ConnectorError("scope_denied", "the lease grants no reads in this environment");
  }
  return grant;
}

export async function leasedRead(
  op: LeasedReadOp,
  deps: { registry: EnvironmentRegistry; lease: LeaseKeeper },
): Promise<RelayResultOf<"leased_read">> {
  const handle = deps.registry.resolve(op.environment);
  const before = leasedGrant(deps.lease, op.leaseId, handle.environmentId);
  const readable = new Set(before.readProjectIds);
  if (op.projectId !== undefined && !readable.has(op.projectId)) {
    throw new ConnectorError("scope_denied", `project ${op.projectId} is not readable under this lease`);
  }
  const connection = await handle.connect();
  const signal = AbortSignal.timeout(LEASED_READ_TIMEOUT_MS);
  const shell = await connection.http.getShell({ signal });
  const inScope = (projectId: string) =>
    readable.has(projectId) && (op.projectId === undefined || op.projectId === projectId);
  const projectsInScope = () =>
    shell.projects.filter((project) => !project.deletedAt && inScope(project.id)).map(projectRow);
  let result: unknown;
  switch (op.read) {
    case "projects":
      result = { projects: projectsInScope() };
      break;
    case "threads": {
      const listed = op.includeArchived ? await addArchivedThreads(connection, shell, { signal }) : shell;
      const rows = [...listed.threads, ...(op.includeArchived ? listed.archivedThreads : [])];
      // The projects come along: the bridge answers t3_threads, t3_projetos and t3_atencao from one read.
      result = {
        projects: projectsInScope(),
        threads: rows.filter((thread) => !thread.deletedAt && inScope(thread.projectId)),
      };
      break;
    }
    case "thread": {
      if (op.threadId === undefined)
        throw new ConnectorError("invalid_input", "read thread needs a threadId");
      const byId = (snapshot: typeof shell) =>
        [...snapshot.threads, ...snapshot.archivedThreads].find(
          (thread) => thread.id === op.threadId && !thread.deletedAt,
        );
      let snapshot = shell;
      let row = byId(snapshot);
      if (row === undefined) {
        snapshot = await addArchivedThreads(connection, shell, { signal });
        row = byId(snapshot);
      }
      // A thread of another project is indistinguishable from a missing one.
      if (row === undefined || !inScope(row.projectId)) {
        throw new ConnectorError("thread_not_found", `no thread ${op.threadId} in the lease's projects`);
      }
      // The bounded window where the server has it, else the full snapshot (older T3: ADR 0009).
      const window = await fetchThreadWindow(connection.http, op.threadId, { signal });
      const detail = { projection: window.projection, ...(window.bounds ?? { hasMoreHistory: false }) };
      const { projectId } = row;
      const project = snapshot.projects.find((candidate) => candidate.id === projectId);
      result = { thread: row, project: project === undefined ? null : projectRow(project), detail };
      break;
    }
  }
  // The lease may have closed (or narrowed) while we read: then the result is dropped.
  const after = leasedGrant(deps.lease, op.leaseId, handle.environmentId);
  if (after.readProjectIds.join("\n") !== before.readProjectIds.join("\n")) {
    throw new ConnectorError("lease_closed", "the lease changed during the read");
  }
  // The answer names the lease it was read under (ADR 0028).
  return {
    leaseId: op.leaseId,
    environment: handle.alias,
    environmentId: handle.environmentId,
    ...(result as object),
  };
}

/** The part of a project row a leased read answers. */
function projectRow(project: ProjectShell) {
  return {
    id: project.id,
    title: project.title,
    workspaceRoot: project.workspaceRoot ?? null,
    archivedAt: project.archivedAt ?? null,
  };
}
