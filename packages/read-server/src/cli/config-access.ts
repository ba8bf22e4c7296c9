import { ConnectorError } from "@t3-connector/core";
import type { CliIo } from "@t3-connector/core/cli-support";
import { configPathContext } from "@t3-connector/core/cli-support";
import {
  loadReadConfig,
  noEnvironmentsError,
  type ReadConfig,
  type ReadEnvironmentConfig,
} from "@t3-connector/core/config";
import { EnvironmentRegistry, READ_SCOPES } from "@t3-connector/core/environments";

/** The read config the CLI was pointed at (`T3_CONNECTOR_CONFIG` or the default path). */
export function loadCliConfig(io: CliIo): Promise<ReadConfig> {
  return loadReadConfig(configPathContext(io));
}

/** A registry over `environments` that accepts only tokens scoped to exactly `orchestration:read`. */
export function cliRegistry(
  io: CliIo,
  environments: readonly ReadEnvironmentConfig[],
  connectTimeoutMs: number,
): EnvironmentRegistry {
  return new EnvironmentRegistry({
    environments,
    requiredScopes: READ_SCOPES,
    connectTimeoutMs,
    ...(io.fetch ? { fetch: io.fetch } : {}),
  });
}

/** The configured environment named by alias or environmentId; never another one. */
export function findEnvironment(config: ReadConfig, reference: string): ReadEnvironmentConfig {
  if (config.environments.length === 0) throw noEnvironmentsError("read", config.path);
  const found =
    config.environments.find((env) => env.alias === reference) ??
    config.environments.find((env) => env.environmentId === reference);
  if (found === undefined) {
    const aliases = config.environments.map((env) => env.alias);
    throw new ConnectorError(
      "environment_unknown",
      `unknown environment "${reference}"; configured: ${aliases.join(", ")}`,
      { details: { aliases } },
    );
  }
  return found;
}

/** `{code, message}` for JSON output. */
export function errorJson(error: unknown): { code: string; message: string } {
  if (error instanceof ConnectorError) return { code: error.code, message: error.message };
  return { code: "internal", message: "unexpected failure" };
}
