import { ConnectorError } from "@t3-connector/core";
import type { ReadEnvironmentConfig } from "@t3-connector/core/config";
import { READ_SCOPES } from "@t3-connector/core/environments";
import {
  type OperateConfigName,
  PAIR_TIMEOUT_MS,
  type PairingOutcome,
  pairEnvironment as pairWithScopes,
  readPairingCode,
} from "@t3-connector/core/pairing";
import { readClientLabel } from "./also-configs.js";
import { findEnvironment, loadCliConfig } from "./config-access.js";
import { type CliIo, writeJson } from "./io.js";

export { PAIR_TIMEOUT_MS, type PairingOutcome };

/**
 * `t3-connector pair --environment X`: turns a pairing code (stdin) into a token scoped to
 * exactly `orchestration:read` and saves it where the config expects it. The code is never
 * echoed, and nothing is saved unless the server is the configured environment and the new
 * token verifies with exactly the read scope.
 */
export async function pairCommand(
  io: CliIo,
  reference: string,
  also: readonly OperateConfigName[] = [],
): Promise<number> {
  const config = await loadCliConfig(io);
  const entry = findEnvironment(config, reference);
  if (also.length > 0) return (await import("./pair-also.js")).pairAlsoCommand(io, config, entry, also);
  const code = await readPairingCode(io);
  writeJson(io, await pairEnvironment(io, entry, code));
  return 0;
}

export function pairEnvironment(
  io: CliIo,
  entry: ReadEnvironmentConfig,
  code: string,
): Promise<PairingOutcome> {
  return pairWithScopes({
    entry,
    code,
    scopes: READ_SCOPES,
    ...(io.fetch ? { fetch: io.fetch } : {}),
    wording: {
      clientLabel: readClientLabel(),
      environmentMismatch: (expected, actual) =>
        new ConnectorError(
          "environment_mismatch",
          `environment "${expected.alias}" answered as environmentId ${actual}, but the config ` +
            `expects ${expected.environmentId}; the pairing code was not used`,
          { details: { expected: expected.environmentId, actual } },
        ),
      scopeMismatchMessage: "T3 granted a different scope set than orchestration:read",
    },
  });
}
