/**
 * @module Project writes a request names (ADR 0074, "What the page says"). A client that means to
 * create a project, move one or force a project's delete names that write's exact input in its
 * request; the gate reads the facts now (the folder walked under the allowed roots and whether it
 * exists or T3 would make it; the project's live and archived threads counted), the page says them
 * in its own words, and the
 * lease an approval makes is bound to exactly those inputs (write-engine `bound-project-writes`).
 * Nothing the page says of them comes from the client's words: the path is the input itself, the
 * rest is read by the gate.
 */
import { ConnectorError } from "@t3-connector/core";
import type { EnvironmentRegistry } from "@t3-connector/core/environments";
import {
  type BoundProjectWrite,
  type LeaseScope,
  parseLeaseScope,
  projectWriteKey,
} from "@t3-connector/write-engine/actions";
import { boundProjectWriteFacts } from "@t3-connector/write-engine/engine";
import { MAX_PROJECT_WRITES } from "@t3-connector/write-engine/relay-contract";
import type { ProposedProjectWrite } from "../contract.js";
import { cleanText, type InventoryView } from "./proposal.js";

/** Reads what the page says of one write in one environment (the gate's reads its registry). */
export type ProjectWriteFacts = (
  environmentId: string,
  write: BoundProjectWriteKey,
  signal?: AbortSignal,
) => Promise<BoundProjectWrite>;

type BoundProjectWriteKey = NonNullable<ReturnType<typeof projectWriteKey>>;

/** A bound write as the page shows it. */
export interface ShownProjectWrite {
  readonly environmentId: string;
  readonly alias: string;
  readonly write: BoundProjectWrite;
  /** What the page says, made from the input and the gate's reads. */
  readonly words: string;
}

/** The facts over the gate's registry: the environment's own `projectRoots`, its transport. */
export function registryProjectWriteFacts(registry: EnvironmentRegistry): ProjectWriteFacts {
  return async (environmentId, write, signal) => {
    const handle = registry.environments.find((candidate) => candidate.environmentId === environmentId);
    if (handle === undefined) throw invalid(`environment ${environmentId} is not configured`);
    const environment = await handle.connect(signal === undefined ? {} : { signal });
    return boundProjectWriteFacts(write, {
      environment,
      transport: handle.transport,
      projectRoots: handle.projectRoots,
    });
  };
}

function invalid(message: string): ConnectorError {
  return new ConnectorError("proposal_invalid", `${message}. Nothing was requested.`);
}

/**
 * Reads the facts of every proposed write, in order. A write that names an environment or a
 * project the inventory does not list, an unforced delete (it needs no binding: propose the
 * action), or a folder the send would refuse refuses the whole request, as a misnamed proposal does.
 */
export async function showProjectWrites(
  proposed: readonly ProposedProjectWrite[],
  inventory: InventoryView,
  facts: ProjectWriteFacts | undefined,
  signal?: AbortSignal,
): Promise<ShownProjectWrite[]> {
  if (proposed.length > MAX_PROJECT_WRITES) {
    throw invalid(`at most ${MAX_PROJECT_WRITES} project writes may be named in one request`);
  }
  const shown: ShownProjectWrite[] = [];
  for (const ask of proposed) {
    const grant = inventory.scope.environments.find(
      (candidate) => candidate.alias === ask.environment || candidate.environmentId === ask.environment,
    );
    if (grant === undefined) throw invalid(`environment ${JSON.stringify(ask.environment)} is not reachable`);
    const key = projectWriteKey(ask.action, ask);
    if (key === null) {
      throw invalid(
        "only a project create, a move or a forced delete is named in projectWrites; propose other actions",
      );
    }
    const project =
      key.action === "project.create"
        ? null
        : grant.projects.find((candidate) => candidate.id === key.projectId);
    if (project === undefined)
      throw invalid(`project ${JSON.stringify(ask.projectId)} is not in ${grant.alias}`);
    if (facts === undefined) throw invalid("this gate cannot read project writes");
    const write = await facts(grant.environmentId, key, signal);
    const name = project === null ? "" : (cleanText(project.name, 120) ?? project.id);
    shown.push({
      environmentId: grant.environmentId,
      alias: grant.alias,
      write,
      words: wordsOf(write, name),
    });
  }
  return shown;
}

function wordsOf(write: BoundProjectWrite, projectName: string): string {
  if (write.action === "project.delete") {
    const threads = `${write.threadCount} thread${write.threadCount === 1 ? "" : "s"}`;
    return `delete project ${projectName} and its ${threads}`;
  }
  if (write.action === "project.meta.update") {
    return `move project ${projectName} to ${write.workspaceRoot}; that folder exists`;
  }
  return write.wouldCreate
    ? `create a project at ${write.workspaceRoot}; that folder does not exist and would be created`
    : `create a project at ${write.workspaceRoot}; that folder exists and would not be created`;
}

/**
 * The scope with each shown write bound in its environment's grant, when the grant keeps its
 * action (and, for a move or a delete, its project): what an approval grants is what the page said.
 */
export function bindProjectWrites(scope: LeaseScope, shown: readonly ShownProjectWrite[]): LeaseScope {
  if (shown.length === 0) return scope;
  return parseLeaseScope({
    ...scope,
    environments: scope.environments.map((grant) => {
      const kept = shown
        .filter((entry) => entry.environmentId === grant.environmentId)
        .map((entry) => entry.write)
        .filter(
          (write) =>
            (grant.actions as readonly string[]).includes(write.action) &&
            (write.action === "project.create" ||
              grant.projects.some((project) => project.id === write.projectId)),
        );
      return kept.length === 0 ? grant : { ...grant, projectWrites: kept };
    }),
  });
}
