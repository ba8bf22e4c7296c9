import { realpath } from "node:fs/promises";
import { hostname } from "node:os";
import { resolve } from "node:path";
import { ConnectorError, isConnectorError } from "@t3-connector/core";
import { configPathContext } from "@t3-connector/core/cli-support";
import { type EnvironmentConfig, loadReadConfig, noEnvironmentsError } from "@t3-connector/core/config";
import { OPERATE_SCOPES } from "@t3-connector/core/environments";
import { pairEnvironment, readPairingCode } from "@t3-connector/core/pairing";
import { type CliIo, loadCliWriteConfig, writeJson } from "./cli-io.js";

export { PAIR_TIMEOUT_MS } from "@t3-connector/core/pairing";

/**
 * `t3-connector-write pair --environment X`: turns a pairing code (stdin, never echoed by us) into
 * a token of exactly `orchestration:read orchestration:operate`, verifies it against the configured
 * environment and saves it (600, in a 700 directory). A write token never shares a file with a
 * read token: the read server must never be able to pick up an operate token.
 */
export async function pairCommand(io: CliIo, reference: string): Promise<number> {
  const config = await loadCliWriteConfig(io);
  if (config.environments.length === 0) throw noEnvironmentsError("write", config.path);
  const entry =
    config.environments.find((env) => env.alias === reference) ??
    config.environments.find((env) => env.environmentId === reference);
  if (entry === undefined) {
    const aliases = config.environments.map((env) => env.alias);
    throw new ConnectorError(
      "environment_unknown",
      `unknown environment "${reference}"; configured: ${aliases.join(", ")}`,
      {
        details: { aliases },
      },
    );
  }
  await refuseReadTokenPath(io, entry.tokenFile);
  const code = await readPairingCode(io);
  writeJson(io, await pairWriteEnvironment(io, entry, code));
  return 0;
}

async function canonical(path: string): Promise<string> {
  return realpath(path).catch(() => resolve(path));
}

/** Refuses a token path that the read config uses (compared after resolving symlinks). */
export async function refuseReadTokenPath(io: CliIo, tokenFile: string): Promise<void> {
  let readPaths: string[];
  try {
    const read = await loadReadConfig(configPathContext(io));
    readPaths = read.environments.map((env) => env.tokenFile);
  } catch (error) {
    if (isConnectorError(error, "config_not_found")) return;
    throw error;
  }
  const target = await canonical(tokenFile);
  for (const path of readPaths) {
    if ((await canonical(path)) === target) {
      throw new ConnectorError(
        "token_file_invalid",
        "this tokenFile is also a read token file in the read config; give the write token its own file",
      );
    }
  }
}

export async function pairWriteEnvironment(io: CliIo, entry: EnvironmentConfig, code: string) {
  const outcome = await pairEnvironment({
    entry,
    code,
    scopes: OPERATE_SCOPES,
    ...(io.fetch ? { fetch: io.fetch } : {}),
    wording: {
      clientLabel: `t3-connector-write (${hostname()})`,
      environmentMismatch: (expected, actual) =>
        new ConnectorError(
          "environment_mismatch",
          `environment "${expected.alias}" answered as ${actual}, the config expects ${expected.environmentId}; the pairing code was not used`,
        ),
      scopeMismatchMessage: "T3 granted a different scope set than read + operate",
    },
  });
  return { ...outcome, scopes: [...outcome.scopes].sort() };
}
