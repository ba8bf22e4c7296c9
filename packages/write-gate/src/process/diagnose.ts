import { type DiagnosisError, diagnosisError } from "@t3-connector/core/cli-support";
import { type EnvironmentConfig, noEnvironmentsError } from "@t3-connector/core/config";
import { EnvironmentRegistry, OPERATE_SCOPES } from "@t3-connector/core/environments";
import { ACTION_IDS } from "@t3-connector/write-engine/actions";
import { type CliIo, loadCliWriteConfig, writeJson } from "./cli-io.js";

export const DIAGNOSE_TIMEOUT_MS = 15_000;

export interface WriteEnvironmentDiagnosis {
  environment: string;
  environmentId: string;
  ok: boolean;
  version?: string | null;
  scopes?: string[];
  tokenExpiresAt?: string | null;
  projectCount?: number;
  actionCount?: number;
  inventory?: Array<{ id: string; title: string; directory: string | null }>;
  error?: DiagnosisError;
}

/**
 * `t3-connector-write diagnose [--projects]`: per environment, who answers, what the write token
 * may do (exactly read + operate), when it expires, and what a lease could cover. Exit 1 on any error.
 */
export async function diagnoseCommand(io: CliIo, withProjects: boolean): Promise<number> {
  const config = await loadCliWriteConfig(io);
  if (config.environments.length === 0) throw noEnvironmentsError("write", config.path);
  const environments = await diagnoseWriteEnvironments(io, config.environments, withProjects);
  const ok = environments.every((diagnosis) => diagnosis.ok);
  writeJson(io, { ok, environments });
  return ok ? 0 : 1;
}

/** The diagnosis of `environments`, one entry each, in order. */
export async function diagnoseWriteEnvironments(
  io: CliIo,
  configured: readonly EnvironmentConfig[],
  withProjects: boolean,
): Promise<WriteEnvironmentDiagnosis[]> {
  const registry = new EnvironmentRegistry({
    environments: configured,
    requiredScopes: OPERATE_SCOPES,
    connectTimeoutMs: DIAGNOSE_TIMEOUT_MS,
    ...(io.fetch ? { fetch: io.fetch } : {}),
  });
  try {
    const environments = await Promise.all(
      registry.environments.map(async (handle): Promise<WriteEnvironmentDiagnosis> => {
        const base = { environment: handle.alias, environmentId: handle.environmentId };
        try {
          const connection = await handle.connect();
          const shell = await connection.http.getShell({ signal: AbortSignal.timeout(DIAGNOSE_TIMEOUT_MS) });
          const live = shell.projects.filter((project) => !project.deletedAt);
          return {
            ...base,
            ok: true,
            version: connection.version,
            scopes: [...connection.scopes].sort(),
            tokenExpiresAt: connection.tokenExpiresAt ?? null,
            projectCount: live.length,
            actionCount: ACTION_IDS.length,
            ...(withProjects
              ? {
                  inventory: live.map((project) => ({
                    id: project.id,
                    title: project.title,
                    directory: project.workspaceRoot ?? null,
                  })),
                }
              : {}),
          };
        } catch (error) {
          return { ...base, ok: false, error: diagnosisError(error, "t3-connector-write", handle.alias) };
        }
      }),
    );
    return environments;
  } finally {
    await registry.close();
  }
}
