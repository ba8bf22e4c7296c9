import { hostname } from "node:os";
import { ConnectorError } from "@t3-connector/core";
import { type ReadEnvironmentConfig, writeTokenFile } from "@t3-connector/core/config";
import { READ_SCOPES, SshTunnel, scopeDifference, verifyEnvironment } from "@t3-connector/core/environments";
import { exchangePairingCode, parsePairingInput, T3HttpClient } from "@t3-connector/core/t3";
import { findEnvironment, loadCliConfig } from "./config-access.js";
import { type CliIo, readAll, writeJson } from "./io.js";

export const PAIR_TIMEOUT_MS = 15_000;

export interface PairingOutcome {
  savedTo: string;
  environment: string;
  environmentId: string;
  scopes: string[];
  expiresAt: string | null;
}

/**
 * `t3-connector pair --environment X`: turns a pairing code (stdin) into a token scoped to
 * exactly `orchestration:read` and saves it where the config expects it. The code is never
 * echoed, and nothing is saved unless the server is the configured environment and the new
 * token verifies with exactly the read scope.
 */
export async function pairCommand(io: CliIo, reference: string): Promise<number> {
  const config = await loadCliConfig(io);
  const entry = findEnvironment(config, reference);
  if (io.stdin === undefined)
    throw new ConnectorError("invalid_input", "pair reads the pairing code from stdin");
  if ((io.stdin as { isTTY?: boolean }).isTTY) {
    // The terminal itself echoes what is pasted; piping keeps the code off the screen.
    io.stderr.write(
      "Reading the pairing code from the terminal (it stays visible there; piping it in avoids that).\n" +
        "Paste the code, its JSON or its URL, then press Ctrl-D.\n",
    );
  }
  const code = parsePairingInput(await readAll(io.stdin));
  writeJson(io, await pairEnvironment(io, entry, code));
  return 0;
}

export async function pairEnvironment(
  io: CliIo,
  entry: ReadEnvironmentConfig,
  code: string,
): Promise<PairingOutcome> {
  const fetcher = io.fetch ?? globalThis.fetch;
  let tunnel: SshTunnel | undefined;
  try {
    let baseUrl: string;
    if (entry.transport.kind === "url") {
      baseUrl = entry.transport.url;
    } else {
      // The exchange goes through our own tunnel, like every later read.
      tunnel = new SshTunnel({ host: entry.transport.host, remotePort: entry.transport.remotePort });
      baseUrl = `http://127.0.0.1:${await tunnel.open()}`;
    }
    const signal = AbortSignal.timeout(PAIR_TIMEOUT_MS);
    // A pairing code is single use: spend it only on the server the config names.
    const descriptor = await new T3HttpClient({ baseUrl, fetch: fetcher }).getDescriptor({ signal });
    if (descriptor.environmentId !== entry.environmentId) {
      throw new ConnectorError(
        "environment_mismatch",
        `environment "${entry.alias}" answered as environmentId ${descriptor.environmentId}, but the config ` +
          `expects ${entry.environmentId}; the pairing code was not used`,
        { details: { expected: entry.environmentId, actual: descriptor.environmentId } },
      );
    }
    const granted = await exchangePairingCode({
      baseUrl,
      code,
      scopes: READ_SCOPES,
      clientLabel: `t3-connector (${hostname()})`,
      fetch: fetcher,
      signal,
    });
    const { missing, extra } = scopeDifference(granted.scopes, READ_SCOPES);
    if (missing.length > 0 || extra.length > 0) {
      throw new ConnectorError(
        "scope_not_granted",
        "T3 granted a different scope set than orchestration:read",
        {
          details: { missing, extra },
        },
      );
    }
    // The token must also prove itself before it is saved: right server, exactly the read scope.
    const identity = await verifyEnvironment(
      new T3HttpClient({ baseUrl, token: granted.accessToken, fetch: fetcher }),
      { alias: entry.alias, environmentId: entry.environmentId, requiredScopes: READ_SCOPES },
      signal,
    );
    await writeTokenFile(entry.tokenFile, granted.accessToken);
    return {
      savedTo: entry.tokenFile,
      environment: entry.alias,
      environmentId: entry.environmentId,
      scopes: identity.scopes,
      expiresAt: granted.expiresAt ?? identity.tokenExpiresAt ?? null,
    };
  } finally {
    await tunnel?.close();
  }
}
