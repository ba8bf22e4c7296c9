/**
 * The one-environment reads of the seed's CLI (`projects`, `providers`, `list`, `read`,
 * `timeline`): thin wrappers that only name the read tool and shape its input. The read itself is
 * the read server's builder through `runQuery`, exactly as `query` runs it, so ops never has a
 * second implementation of a read.
 */
import { resolveProject } from "./create.js";
import type { OpsEnvironments } from "./environments.js";
import { readShell } from "./listing.js";
import { resolveThread } from "./references.js";
import { runQuery } from "./run-query.js";

/** Drops the undefined fields, so the tool's strict schema sees only what was asked. */
function defined(input: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined));
}

export interface ThreadListFilters {
  /** A projectId, workspace root or unique project title. */
  project?: string;
  state?: string;
  includeNoRun?: boolean;
  woke?: boolean;
  search?: string;
  limit?: number;
  cursor?: string;
}

export async function listEnvironmentThreads(
  environments: OpsEnvironments,
  environment: string,
  filters: ThreadListFilters = {},
): Promise<unknown> {
  const { project, ...rest } = filters;
  let projectId: string | undefined;
  if (project !== undefined) {
    const { shell } = await readShell(environments.resolve(environment));
    projectId = resolveProject(shell, project).id;
  }
  return runQuery(environments, environment, "threads", defined({ ...rest, projectId }));
}

export function listProjects(
  environments: OpsEnvironments,
  environment: string,
  filters: { search?: string } = {},
): Promise<unknown> {
  return runQuery(environments, environment, "projects", defined(filters));
}

/**
 * The environment's provider instances with their models and options: `create` and `configure`
 * need a model, so the listing that is meant to find one must show them (t3_providers leaves them
 * out unless asked, to keep an MCP answer small).
 */
export function listProviders(
  environments: OpsEnvironments,
  environment: string,
  filters: { instanceId?: string } = {},
): Promise<unknown> {
  return runQuery(environments, environment, "providers", { ...defined(filters), includeModels: true });
}

/** `timeline <ref>`: the thread's latest messages, as t3_mensagens returns them. */
export async function readTimeline(
  environments: OpsEnvironments,
  environment: string | undefined,
  reference: string,
  options: { limit?: number; maxCharacters?: number } = {},
): Promise<unknown> {
  const { env, thread } = await resolveThread(environments, reference, environment);
  return runQuery(environments, env.config.alias, "messages", defined({ threadId: thread.id, ...options }));
}
