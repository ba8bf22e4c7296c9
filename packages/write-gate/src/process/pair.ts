import { realpath } from "node:fs/promises";
import { hostname } from "node:os";
import { resolve } from "node:path";
import { ConnectorError, isConnectorError } from "@t3-connector/core";
import { type EnvironmentConfig, loadReadConfig, writeTokenFile } from "@t3-connector/core/config";
import {
  OPERATE_SCOPES,
  SshTunnel,
  scopeDifference,
  verifyEnvironment,
} from "@t3-connector/core/environments";
import { exchangePairingCode, parsePairingInput, T3HttpClient } from "@t3-connector/core/t3";
import { type CliIo, loadCliWriteConfig, readAll, writeJson } from "./cli-io.js";

export const PAIR_TIMEOUT_MS = 15_000;

/**
 * `t3-connector-write pair --environment X`: turns a pairing code (stdin, never echoed by us) into
 * a token of exactly `orchestration:read orchestration:operate`, verifies it against the configured
 * environment and saves it (600, in a 700 directory). A write token never shares a file with a
 * read token: the read server must never be able to pick up an operate token.
 */
export async function pairCommand(io: CliIo, reference: string): Promise<number> {
  const config = await loadCliWriteConfig(io);
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
  if (io.stdin === undefined)
    throw new ConnectorError("invalid_input", "pair reads the pairing code from stdin");
  if ((io.stdin as { isTTY?: boolean }).isTTY) {
    io.stderr.write(
      "Reading the pairing code from the terminal (it stays visible there; piping it in avoids that).\n" +
        "Paste the code, its JSON or its URL, then press Ctrl-D.\n",
    );
  }
  const code = parsePairingInput(await readAll(io.stdin));
  writeJson(io, await pairWriteEnvironment(io, entry, code));
  return 0;
}

async function canonical(path: string): Promise<string> {
  return realpath(path).catch(() => resolve(path));
}

/** Refuses a token path that the read config uses (compared after resolving symlinks). */
async function refuseReadTokenPath(io: CliIo, tokenFile: string): Promise<void> {
  let readPaths: string[];
  try {
    const read = await loadReadConfig({
      ...(io.env ? { env: io.env } : {}),
      ...(io.homeDir ? { homeDir: io.homeDir } : {}),
    });
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

async function pairWriteEnvironment(io: CliIo, entry: EnvironmentConfig, code: string) {
  const fetcher = io.fetch ?? globalThis.fetch;
  let tunnel: SshTunnel | undefined;
  try {
    let baseUrl: string;
    if (entry.transport.kind === "url") {
      baseUrl = entry.transport.url;
    } else {
      tunnel = new SshTunnel({ host: entry.transport.host, remotePort: entry.transport.remotePort });
      baseUrl = `http://127.0.0.1:${await tunnel.open()}`;
    }
    const signal = AbortSignal.timeout(PAIR_TIMEOUT_MS);
    // A pairing code is single use: spend it only on the server the config names.
    const descriptor = await new T3HttpClient({ baseUrl, fetch: fetcher }).getDescriptor({ signal });
    if (descriptor.environmentId !== entry.environmentId) {
      throw new ConnectorError(
        "environment_mismatch",
        `environment "${entry.alias}" answered as ${descriptor.environmentId}, the config expects ${entry.environmentId}; the pairing code was not used`,
      );
    }
    const granted = await exchangePairingCode({
      baseUrl,
      code,
      scopes: OPERATE_SCOPES,
      clientLabel: `t3-connector-write (${hostname()})`,
      fetch: fetcher,
      signal,
    });
    const { missing, extra } = scopeDifference(granted.scopes, OPERATE_SCOPES);
    if (missing.length > 0 || extra.length > 0) {
      throw new ConnectorError("scope_not_granted", "T3 granted a different scope set than read + operate", {
        details: { missing, extra },
      });
    }
    const identity = await verifyEnvironment(
      new T3HttpClient({ baseUrl, token: granted.accessToken, fetch: fetcher }),
      { alias: entry.alias, environmentId: entry.environmentId, requiredScopes: OPERATE_SCOPES },
      signal,
    );
    await writeTokenFile(entry.tokenFile, granted.accessToken);
    return {
      savedTo: entry.tokenFile,
      environment: entry.alias,
      environmentId: entry.environmentId,
      scopes: [...identity.scopes].sort(),
      expiresAt: granted.expiresAt ?? identity.tokenExpiresAt ?? null,
    };
  } finally {
    await tunnel?.close();
  }
}
