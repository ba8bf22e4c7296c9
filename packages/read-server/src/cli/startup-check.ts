import { type ConnectorError, type ErrorCode, isConnectorError } from "@t3-connector/core";
import type { EnvironmentRegistry } from "@t3-connector/core/environments";

/** How long start-up waits for each environment to verify; a slower one only warns. */
export const STARTUP_VERIFY_TIMEOUT_MS = 5_000;

/**
 * Failures that prove the configuration itself is wrong or unsafe, so the server must not start:
 * a token with any scope beyond `orchestration:read` (this process must never hold write power),
 * a server answering as another environment, and a server without protocol 2. Anything else
 * (down, slow, expired token, a token file that is missing or readable by others) concerns one
 * environment only: the others are served, the operator gets a warning naming the file, and
 * every read reports that environment in `environmentFailures` with the reason (ADR 0008).
 * A bad token file is never read, so nothing unsafe is used by serving the others.
 */
const REFUSING_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  "scope_mismatch",
  "environment_mismatch",
  "protocol_unsupported",
]);

export interface StartupCheck {
  /** Environments that must stop start-up, with the error that says why. */
  refusals: Array<{ alias: string; error: ConnectorError }>;
  /** One line per environment that could not be verified now (the server still starts). */
  warnings: string[];
}

/**
 * Connects to and verifies every configured environment in parallel. The verified connections
 * stay in the registry, so the first tool call does not pay for them again. `onRefusal` hears
 * each refusal as soon as it is known, so a caller can stop without waiting for slower environments.
 */
export async function checkEnvironmentsAtStartup(
  registry: EnvironmentRegistry,
  timeoutMs: number = STARTUP_VERIFY_TIMEOUT_MS,
  onRefusal?: (refusal: { alias: string; error: ConnectorError }) => void,
): Promise<StartupCheck> {
  const check: StartupCheck = { refusals: [], warnings: [] };
  await Promise.all(
    registry.environments.map(async (handle) => {
      try {
        await handle.connect({ signal: AbortSignal.timeout(timeoutMs) });
      } catch (error) {
        if (isConnectorError(error) && REFUSING_CODES.has(error.code)) {
          const refusal = { alias: handle.alias, error };
          check.refusals.push(refusal);
          onRefusal?.(refusal);
          return;
        }
        const reason = isConnectorError(error, "cancelled")
          ? `did not verify within ${timeoutMs} ms`
          : isConnectorError(error)
            ? error.toString()
            : "failed unexpectedly";
        check.warnings.push(
          `environment "${handle.alias}" is not available now (${reason}); reads will report it until it answers`,
        );
      }
    }),
  );
  const order = registry.environments.map((handle) => handle.alias);
  check.refusals.sort((a, b) => order.indexOf(a.alias) - order.indexOf(b.alias));
  return check;
}
