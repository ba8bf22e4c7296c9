import { type DiagnosisError, diagnosisError } from "@t3-connector/core/cli-support";
import { noEnvironmentsError, type ReadEnvironmentConfig } from "@t3-connector/core/config";
import type { ConnectedEnvironment } from "@t3-connector/core/environments";
import { cliRegistry, findEnvironment, loadCliConfig } from "./config-access.js";
import { type CliIo, writeJson } from "./io.js";

export const DIAGNOSE_TIMEOUT_MS = 15_000;

export interface EnvironmentDiagnosis {
  alias: string;
  environmentId: string;
  ok: boolean;
  name?: string | null;
  version?: string | null;
  scopes?: string[];
  tokenExpiresAt?: string | null;
  /** Configured projects that exist in the environment. */
  authorizedProjects?: Array<{ projectId: string; title: string }>;
  /** Configured projects the environment does not have (deleted, or a typo): a problem. */
  missingAllowedProjects?: string[];
  /** Threads a read tool can list: in an authorized project, neither archived nor deleted. */
  visibleThreadCount?: number;
  error?: DiagnosisError;
}

/**
 * `t3-connector diagnose [--environment X]`: what each environment is, what its token may do and
 * whether its project list still matches. Exit 1 when anything is wrong.
 */
export async function diagnoseCommand(io: CliIo, environment: string | undefined): Promise<number> {
  const config = await loadCliConfig(io);
  if (config.environments.length === 0) throw noEnvironmentsError("read", config.path);
  const selected = environment === undefined ? config.environments : [findEnvironment(config, environment)];
  const diagnoses = await diagnoseEnvironments(io, selected);
  const ok = diagnoses.every((diagnosis) => diagnosis.ok);
  writeJson(io, { ok, environments: diagnoses });
  return ok ? 0 : 1;
}

export async function diagnoseEnvironments(
  io: CliIo,
  environments: readonly ReadEnvironmentConfig[],
): Promise<EnvironmentDiagnosis[]> {
  const registry = cliRegistry(io, environments, DIAGNOSE_TIMEOUT_MS);
  try {
    return await Promise.all(
      registry.environments.map(async (handle, index) => {
        const entry = environments[index] as ReadEnvironmentConfig;
        try {
          const connection = await handle.connect();
          return await diagnoseConnected(connection, entry);
        } catch (error) {
          return {
            alias: handle.alias,
            environmentId: handle.environmentId,
            ok: false,
            error: diagnosisError(error, "t3-connector", handle.alias),
          };
        }
      }),
    );
  } finally {
    await registry.close();
  }
}

async function diagnoseConnected(
  connection: ConnectedEnvironment,
  entry: ReadEnvironmentConfig,
): Promise<EnvironmentDiagnosis> {
  const shell = await connection.http.getShell({ signal: AbortSignal.timeout(DIAGNOSE_TIMEOUT_MS) });
  const live = new Map(
    shell.projects.filter((project) => !project.deletedAt).map((project) => [project.id, project.title]),
  );
  const allowed = new Set(entry.allowedProjects);
  const authorizedProjects = entry.allowedProjects
    .filter((projectId) => live.has(projectId))
    .map((projectId) => ({ projectId, title: live.get(projectId) ?? "" }));
  const missingAllowedProjects = entry.allowedProjects.filter((projectId) => !live.has(projectId));
  const visibleThreadCount = shell.threads.filter(
    (thread) => allowed.has(thread.projectId) && !thread.archivedAt && !thread.deletedAt,
  ).length;
  return {
    alias: connection.alias,
    environmentId: connection.environmentId,
    ok: missingAllowedProjects.length === 0,
    name: connection.name,
    version: connection.version,
    scopes: [...connection.scopes],
    tokenExpiresAt: connection.tokenExpiresAt ?? null,
    authorizedProjects,
    missingAllowedProjects,
    visibleThreadCount,
  };
}
