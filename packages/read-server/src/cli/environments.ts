import type { ReadConfig } from "@t3-connector/core/config";
import { cliRegistry, errorJson, loadCliConfig } from "./config-access.js";
import { type CliIo, writeJson } from "./io.js";

/** `t3-connector environments` checks each environment for at most this long. */
export const ENVIRONMENTS_CHECK_TIMEOUT_MS = 15_000;

export interface EnvironmentListing {
  default: string;
  environments: Array<{
    alias: string;
    environmentId: string;
    default: boolean;
    transport: string;
    allowedProjectCount: number;
    available: boolean;
    name?: string | null;
    version?: string | null;
    error?: { code: string; message: string };
  }>;
}

/** The configured environments with availability, as JSON on stdout. Always exit 0: it is a listing. */
export async function environmentsCommand(io: CliIo): Promise<number> {
  const config = await loadCliConfig(io);
  writeJson(io, await listEnvironments(io, config));
  return 0;
}

export async function listEnvironments(io: CliIo, config: ReadConfig): Promise<EnvironmentListing> {
  const registry = cliRegistry(io, config.environments, ENVIRONMENTS_CHECK_TIMEOUT_MS);
  try {
    const environments = await Promise.all(
      registry.environments.map(async (handle, index) => {
        const base = {
          alias: handle.alias,
          environmentId: handle.environmentId,
          default: handle.alias === config.default,
          transport: handle.transportLabel,
          allowedProjectCount: config.environments[index]?.allowedProjects.length ?? 0,
        };
        try {
          const connection = await handle.connect();
          return { ...base, available: true, name: connection.name, version: connection.version };
        } catch (error) {
          return { ...base, available: false, error: errorJson(error) };
        }
      }),
    );
    return { default: config.default, environments };
  } finally {
    await registry.close();
  }
}
