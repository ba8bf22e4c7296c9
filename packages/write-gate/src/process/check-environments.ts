/**
 * At start the gate connects to every configured environment once, in the background, and warns
 * (on its terminal) about the ones it could never operate: a server that answers as another
 * environmentId than the config expects, or a token that cannot operate (read-only, expired, or
 * broader than the gate may hold). Without this the gate started silently and the first write,
 * minutes later, failed with a message the person at the gate never saw. An environment that is
 * merely unreachable is not warned about: it may come up later, and every write says so itself.
 */
import { type ConnectorError, isConnectorError } from "@t3-connector/core";
import { type EnvironmentRegistry, FIRST_PROTOCOL_2_RELEASE } from "@t3-connector/core/environments";
import type { StartupWarning } from "../app/index.js";

/** The failures that will not go away by waiting: the config or the token is wrong. */
const CANNOT_OPERATE = new Set([
  "protocol_unsupported",
  "environment_mismatch",
  "scope_mismatch",
  "unauthorized",
  "insufficient_scope",
]);

export interface EnvironmentWarning extends StartupWarning {
  /** One line for the gate's terminal, naming the environment. */
  readonly line: string;
  /**
   * Set when the gate must not serve at all: a T3 before protocol 2 (ADR 0069). Its message names
   * the environment, its version and the upgrade; the gate refuses and closes.
   */
  readonly refusal?: ConnectorError;
}

/** What to do, per failure, in words for the page (the terminal line carries the error's own fix). */
function adviceFor(code: string, alias: string): string {
  switch (code) {
    case "environment_mismatch":
      return (
        `Set the environmentId of "${alias}" in the gate's config to the one this server reports, ` +
        `or point "${alias}" at the server that has the expected one; then restart the gate.`
      );
    case "protocol_unsupported":
      return `Upgrade T3 on "${alias}" to ${FIRST_PROTOCOL_2_RELEASE} or later, or remove "${alias}" from the gate's config.`;
    case "unauthorized":
      return `Pair a new operate token for "${alias}" (this one expired or was revoked), then restart the gate.`;
    default:
      return (
        `Pair an operate token for "${alias}" with exactly the operate scopes (not a read-only token, ` +
        "and not one that grants more), then restart the gate."
      );
  }
}

/**
 * Runs the check in the background and hands its findings to `report` (the terminal and the
 * page), unless the gate closed meanwhile; a failure of the check itself reports nothing.
 */
export function checkAndReport(
  registry: EnvironmentRegistry,
  signal: AbortSignal,
  report: (warnings: readonly EnvironmentWarning[]) => void,
): Promise<readonly EnvironmentWarning[]> {
  return checkEnvironmentsAtStart(registry, signal).then(
    (warnings) => {
      if (!signal.aborted) report(warnings);
      return warnings;
    },
    () => [],
  );
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
          message: error.message,
          advice: adviceFor(error.code, handle.alias),
          line:
            `t3-connector-write gate: WARNING environment "${handle.alias}" (environmentId ${handle.environmentId}) ` +
            `cannot be operated: ${error.code}: ${error.message}`,
          ...(error.code === "protocol_unsupported" ? { refusal: error } : {}),
        };
      }
    }),
  );
  return outcomes.filter((warning): warning is EnvironmentWarning => warning !== null);
}
