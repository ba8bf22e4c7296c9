import { type DiagnosisError, diagnosisError } from "../../cli-support/index.js";
import { noEnvironmentsError, readProjectAcl } from "../../config/index.js";
import { type ConnectedEnvironment, EnvironmentRegistry } from "../../environments/index.js";
import {
  type EnvironmentsCommandContext,
  type EnvironmentsReport,
  findConfigured,
  loadEnvironments,
} from "./command-context.js";
import type { ConfiguredEnvironment, EnvironmentsConfigKind } from "./config-kinds.js";
import type { DiagnoseRequest } from "./requests.js";

export const DIAGNOSE_TIMEOUT_MS = 15_000;

/** One environment as `diagnose` (and `add` and `move`, after their change) reports it, in every CLI. */
export interface EnvironmentDiagnosis {
  alias: string;
  environmentId: string;
  ok: boolean;
  name?: string | null;
  version?: string | null;
  /** Exactly the file's scope set, sorted (a token with any other set fails with `scope_mismatch`). */
  scopes?: string[];
  tokenExpiresAt?: string | null;
  /** Live (not deleted) projects in the environment. */
  projectCount?: number;
  /** Threads this file's token reaches: live, not archived, in a project the file allows. */
  visibleThreadCount?: number;
  /** A file that limits projects (the read config): the configured ones that exist. */
  authorizedProjects?: Array<{ projectId: string; title: string }>;
  /** ... and the configured ones the environment does not have (deleted, or a typo): a problem. */
  missingAllowedProjects?: string[];
  /** With `--projects`: every live project. */
  inventory?: Array<{ projectId: string; title: string; directory: string | null }>;
  error?: DiagnosisError;
}

/**
 * `diagnose [--environment X] [--projects]`: what each environment is, what its token may do (the
 * file's exact scope set) and which projects it reaches. Exit 1 when anything is wrong.
 */
export async function diagnoseCommand(
  context: EnvironmentsCommandContext,
  request: DiagnoseRequest = {},
): Promise<EnvironmentsReport> {
  const loaded = await loadEnvironments(context);
  if (loaded.environments.length === 0) throw noEnvironmentsError(context.kind.owner, loaded.path);
  const selected =
    request.environment === undefined ? loaded.environments : [findConfigured(loaded, request.environment)];
  const environments = await diagnoseEnvironments(context, selected, request.projects === true);
  const ok = environments.every((diagnosis) => diagnosis.ok);
  return { value: { ok, configPath: loaded.path, environments }, exitCode: ok ? 0 : 1 };
}

/** The diagnosis of `configured`, one each, in order. */
export async function diagnoseEnvironments(
  context: EnvironmentsCommandContext,
  configured: readonly ConfiguredEnvironment[],
  withProjects = false,
): Promise<EnvironmentDiagnosis[]> {
  const { kind, io } = context;
  const registry = new EnvironmentRegistry({
    environments: configured,
    requiredScopes: kind.scopes,
    connectTimeoutMs: DIAGNOSE_TIMEOUT_MS,
    ...(io.fetch === undefined ? {} : { fetch: io.fetch }),
  });
  try {
    return await Promise.all(
      registry.environments.map(async (handle, index) => {
        try {
          const connection = await handle.connect();
          const entry = configured[index] as ConfiguredEnvironment;
          return await diagnoseConnected(kind, connection, entry, withProjects);
        } catch (error) {
          return {
            alias: handle.alias,
            environmentId: handle.environmentId,
            ok: false,
            error: diagnosisError(error, kind.program, handle.alias),
          };
        }
      }),
    );
  } finally {
    await registry.close();
  }
}

async function diagnoseConnected(
  kind: EnvironmentsConfigKind,
  connection: ConnectedEnvironment,
  entry: ConfiguredEnvironment,
  withProjects: boolean,
): Promise<EnvironmentDiagnosis> {
  const shell = await connection.http.getShell({ signal: AbortSignal.timeout(DIAGNOSE_TIMEOUT_MS) });
  const live = shell.projects.filter((project) => !project.deletedAt);
  const titles = new Map(live.map((project) => [project.id, project.title]));
  // The read config's ACL: its ids, and the projects a folder of its allowedProjectRoots holds.
  const reached = kind.limitsProjects ? await readProjectAcl(entry).allowedIn(live) : new Set(titles.keys());
  const allowed = [...reached];
  const missingAllowedProjects = (kind.limitsProjects ? (entry.allowedProjects ?? []) : []).filter(
    (projectId) => !titles.has(projectId),
  );
  const visibleThreadCount = shell.threads.filter(
    (thread) => reached.has(thread.projectId) && !thread.archivedAt && !thread.deletedAt,
  ).length;
  return {
    alias: connection.alias,
    environmentId: connection.environmentId,
    ok: missingAllowedProjects.length === 0,
    name: connection.name,
    version: connection.version,
    scopes: [...connection.scopes].sort(),
    tokenExpiresAt: connection.tokenExpiresAt ?? null,
    projectCount: live.length,
    visibleThreadCount,
    ...(kind.limitsProjects
      ? {
          authorizedProjects: allowed
            .filter((projectId) => titles.has(projectId))
            .map((projectId) => ({ projectId, title: titles.get(projectId) ?? "" })),
          missingAllowedProjects,
        }
      : {}),
    ...(withProjects
      ? {
          inventory: live.map((project) => ({
            projectId: project.id,
            title: project.title,
            directory: project.workspaceRoot ?? null,
          })),
        }
      : {}),
  };
}
