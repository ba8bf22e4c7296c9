import { type CliIo, readAll, type TerminalPrompt } from "../cli-support/index.js";
import { type EnvironmentConfig, writeTokenFile } from "../config/index.js";
import { SshTunnel, scopeDifference, verifyEnvironment } from "../environments/index.js";
import { ConnectorError } from "../errors.js";
import { exchangePairingCode, parsePairingInput, T3HttpClient } from "../t3/index.js";
import { nodeHttpFetch, type T3Fetch } from "../t3/node-http-fetch.js";

export const PAIR_TIMEOUT_MS = 15_000;

/**
 * Reads the pairing code (the code itself, its JSON or its URL) from stdin. We never echo it; a
 * terminal does, so a TTY gets a hint that piping keeps the code off the screen.
 */
export async function readPairingCode(
  io: Pick<CliIo, "stdin" | "stderr">,
  prompt?: TerminalPrompt,
): Promise<string> {
  // On a terminal with a prompt open (environments add asks more afterwards), one line is the code.
  if (prompt !== undefined) return parsePairingInput(await prompt.ask("Pairing code or pairing URL: "));
  if (io.stdin === undefined)
    throw new ConnectorError("invalid_input", "pair reads the pairing code from stdin");
  if ((io.stdin as { isTTY?: boolean }).isTTY) {
    io.stderr.write(
      "Reading the pairing code from the terminal (it stays visible there; piping it in avoids that).\n" +
        "Paste the code, its JSON or its URL, then press Ctrl-D.\n",
    );
  }
  return parsePairingInput(await readAll(io.stdin));
}

/** What each CLI says in its own words; the flow is the same for both. */
export interface PairingWording {
  /** Shown as `clientLabel` on the T3 side, e.g. `t3-connector (host)`. */
  clientLabel: string;
  /** The error when the server answers with another environmentId (the code is then unused). */
  environmentMismatch(entry: EnvironmentConfig, actualId: string): ConnectorError;
  /** The `scope_not_granted` message when T3 grants another scope set than `scopes`. */
  scopeMismatchMessage: string;
}

export interface PairEnvironmentOptions {
  entry: EnvironmentConfig;
  code: string;
  /** The exact scope set to ask for; nothing is saved unless T3 grants exactly this. */
  scopes: readonly string[];
  wording: PairingWording;
  fetch?: T3Fetch;
}

export interface PairingOutcome {
  savedTo: string;
  environment: string;
  environmentId: string;
  scopes: string[];
  expiresAt: string | null;
}

/**
 * Spends `code` on the configured environment and saves the token. Nothing is saved unless the
 * server is the configured environment and the new token verifies with exactly `scopes`.
 */
export async function pairEnvironment(options: PairEnvironmentOptions): Promise<PairingOutcome> {
  const { entry, code, scopes, wording } = options;
  const fetcher = options.fetch ?? nodeHttpFetch;
  let tunnel: SshTunnel | undefined;
  try {
    let baseUrl: string;
    if (entry.transport.kind === "url") {
      baseUrl = entry.transport.url;
    } else {
      // The exchange goes through our own tunnel, like every later request.
      tunnel = new SshTunnel({ host: entry.transport.host, remotePort: entry.transport.remotePort });
      baseUrl = `http://127.0.0.1:${await tunnel.open()}`;
    }
    const signal = AbortSignal.timeout(PAIR_TIMEOUT_MS);
    // A pairing code is single use: spend it only on the server the config names.
    const descriptor = await new T3HttpClient({ baseUrl, fetch: fetcher }).getDescriptor({ signal });
    if (descriptor.environmentId !== entry.environmentId) {
      throw wording.environmentMismatch(entry, descriptor.environmentId);
    }
    const granted = await exchangePairingCode({
      baseUrl,
      code,
      scopes,
      clientLabel: wording.clientLabel,
      fetch: fetcher,
      signal,
    });
    const { missing, extra } = scopeDifference(granted.scopes, scopes);
    if (missing.length > 0 || extra.length > 0) {
      throw new ConnectorError("scope_not_granted", wording.scopeMismatchMessage, {
        details: { missing, extra },
      });
    }
    // The token must also prove itself before it is saved: right server, exactly these scopes.
    const identity = await verifyEnvironment(
      new T3HttpClient({ baseUrl, token: granted.accessToken, fetch: fetcher }),
      { alias: entry.alias, environmentId: entry.environmentId, requiredScopes: scopes },
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
