import { realpath } from "node:fs/promises";
import { resolve } from "node:path";
import { type CliIo, configPathContext } from "../../cli-support/index.js";
import { type EnvironmentConfig, loadReadConfig } from "../../config/index.js";
import { ConnectorError, isConnectorError } from "../../errors.js";
import { type PairingOutcome, pairEnvironment } from "../pair-environment.js";
import { clientLabelOf, type EnvironmentsConfigKind } from "./config-kinds.js";

/** The one wording of a server that answers as another machine than the file names. */
export function environmentMismatch(expected: EnvironmentConfig, actual: string, which = "pairing code") {
  return new ConnectorError(
    "environment_mismatch",
    `environment "${expected.alias}" answered as environmentId ${actual}, but the config expects ` +
      `${expected.environmentId}; the ${which} was not used`,
    { details: { expected: expected.environmentId, actual } },
  );
}

/**
 * Spends `code` on a token of exactly the kind's scope set for `entry` and saves it (600, in a 700
 * directory); nothing is saved unless the server is the configured machine and the token verifies.
 */
export async function pairForKind(
  kind: EnvironmentsConfigKind,
  io: CliIo,
  entry: EnvironmentConfig,
  code: string,
): Promise<PairingOutcome> {
  const outcome = await pairEnvironment({
    entry,
    code,
    scopes: kind.scopes,
    ...(io.fetch === undefined ? {} : { fetch: io.fetch }),
    wording: {
      clientLabel: clientLabelOf(kind),
      environmentMismatch: (expected, actual) => environmentMismatch(expected, actual),
      scopeMismatchMessage: `T3 granted a different scope set than ${kind.scopeWords}`,
    },
  });
  return { ...outcome, scopes: [...outcome.scopes].sort() };
}

async function canonical(path: string): Promise<string> {
  return realpath(path).catch(() => resolve(path));
}

/**
 * An operate token never goes into a file the read config names (compared after resolving
 * symlinks): the read server must never pick up a token that can operate. Checked before a code
 * is spent; a missing read config names no file.
 */
export async function refuseReadTokenFile(
  kind: EnvironmentsConfigKind,
  io: CliIo,
  tokenFile: string,
): Promise<void> {
  if (kind.owner === "read") return;
  let readFiles: string[];
  try {
    readFiles = (await loadReadConfig(configPathContext(io))).environments.map((env) => env.tokenFile);
  } catch (error) {
    if (isConnectorError(error, "config_not_found")) return;
    throw error;
  }
  const target = await canonical(tokenFile);
  for (const file of readFiles) {
    if ((await canonical(file)) === target) {
      throw new ConnectorError(
        "token_file_invalid",
        `${tokenFile} is also a read token file in the read config; give the operate token its own file. ` +
          "No pairing code was used",
      );
    }
  }
}

export interface RevokeAdvice {
  token: "read" | "operate";
  clientLabel: string;
  tokenFiles: readonly string[];
  how: string;
}

/** How to end a token at T3: removing it from a config deletes the file, not the T3 session. */
export function revokeAdvice(
  token: "read" | "operate",
  tokenFiles: readonly string[],
  clientLabel: string,
): RevokeAdvice {
  const shared = tokenFiles.length > 1 ? " It is one T3 session: revoking it stops every file listed." : "";
  return {
    token,
    clientLabel,
    tokenFiles,
    how:
      `On the T3 machine: \`t3 auth session list\`, find the session labelled "${clientLabel}", ` +
      `then \`t3 auth session revoke <session-id>\`.${shared}`,
  };
}

/** The advice for a token this kind's CLI paired. */
export function kindRevokeAdvice(kind: EnvironmentsConfigKind, tokenFiles: readonly string[]): RevokeAdvice {
  return revokeAdvice(kind.owner === "read" ? "read" : "operate", tokenFiles, clientLabelOf(kind));
}
