import { type CliIo, writeJson } from "@t3-connector/core/cli-support";
import { noEnvironmentsMessage, type ReadConfig } from "@t3-connector/core/config";
import { cliRegistry, errorJson, loadCliConfig } from "./config-access.js";

/** `t3-connector environments` checks each environment for at most this long. */
export const ENVIRONMENTS_CHECK_TIMEOUT_MS = 15_000;

export interface EnvironmentListing {
  /** The file listed, so a user with several configs knows which one this is. */
  configPath: string;
  /** Only when the file has one: reads have no default environment. */
  default?: string;
  environments: Array<{
    alias: string;
    environmentId: string;
    transport: string;
    allowedProjectCount: number;
    available: boolean;
    name?: string | null;
    version?: string | null;
    error?: { code: string; message: string };
  }>;
}

/**
 * The configured environments with availability, as JSON on stdout. Always exit 0: it is a
 * listing, and an empty one is a state (stderr then says how to add the first environment).
 */
export async function environmentsCommand(io: CliIo): Promise<number> {
  const config = await loadCliConfig(io);
  writeJson(io, await listEnvironments(io, config));
  if (config.environments.length === 0) io.stderr.write(`${noEnvironmentsMessage("read", config.path)}\n`);
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
    return {
      configPath: config.path,
      ...(config.default === undefined ? {} : { default: config.default }),
      environments,
    };
  } finally {
    await registry.close();
  }
}
