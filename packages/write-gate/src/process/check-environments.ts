/**
 * At start the gate connects to every configured environment once, in the background, and warns
 * (on its terminal) about the ones it could never operate: a server that answers as another
 * environmentId than the config expects, or a token that cannot operate (read-only, expired, or
 * broader than the gate may hold). Without this the gate started silently and the first write,
 * minutes later, failed with a message the person at the gate never saw. An environment that is
 * merely unreachable is not warned about: it may come up later, and every write says so itself.
 */
import { isConnectorError } from "@t3-connector/core";
import type { EnvironmentRegistry } from "@t3-connector/core/environments";

/** The failures that will not go away by waiting: the config or the token is wrong. */
const CANNOT_OPERATE = new Set([
  "environment_mismatch",
  "scope_mismatch",
  "unauthorized",
  "insufficient_scope",
]);

export interface EnvironmentWarning {
  readonly alias: string;
  readonly environmentId: string;
  readonly code: string;
  /** One line for the gate's terminal, naming the environment. */
  readonly line: string;
}

export async function checkEnvironmentsAtStart(
  registry: EnvironmentRegistry,
  signal: AbortSignal,
): Promise<EnvironmentWarning[]> {
  const outcomes = await Promise.all(
    registry.environments.map(async (handle): Promise<EnvironmentWarning | null> => {
      try {
        await handle.connect({ signal });
        return null;
      } catch (error) {
        if (!isConnectorError(error) || !CANNOT_OPERATE.has(error.code)) return null;
        return {
          alias: handle.alias,
          environmentId: handle.environmentId,
          code: error.code,
          line:
            `t3-connector-write gate: WARNING environment "${handle.alias}" (environmentId ${handle.environmentId}) ` +
            `cannot be operated: ${error.code}: ${error.message}`,
        };
      }
    }),
  );
  return outcomes.filter((warning): warning is EnvironmentWarning => warning !== null);
}
