import { DEFAULT_REMOTE_PORT, type Transport } from "../config/schema-common.js";
import { ConnectorError } from "../errors.js";
import type { T3Fetch } from "../t3/node-http-fetch.js";
import {
  configuredEntry,
  describeTransport,
  environmentsOf,
  loadExistingConfigDocument,
  parseTransportOption,
  probeEnvironmentId,
  saveConfigDocument,
  transportConfigKeys,
  withBaseUrl,
} from "./add-environment.js";
import type { TransportOption } from "./command/requests.js";

/** What every CLI's `environments move` answers (docs/cli.md). */
export interface MovedEnvironment {
  alias: string;
  configPath: string;
  /** The old and the new address, as `describeTransport` says them. */
  from: string;
  to: string;
  environmentId: string;
  /** True when the entry already had this address: nothing was written. */
  unchanged: boolean;
}

export interface MoveEnvironmentRequest {
  alias: string;
  transport: TransportOption;
  configPath: string;
  /** How the not-found message names the file: `read config`, `write config`, `ops config`. */
  configName: string;
  /** The config loader's check of the document to write. */
  validate: (document: unknown) => void;
  fetch?: T3Fetch | undefined;
  /**
   * Checks the new address for this entry; default: the rules every config shares. ops passes its
   * own, so an entry it allows plain http to another host (`insecureHttp`) keeps that allowance.
   */
  parseTransport?: (option: TransportOption, entry: Record<string, unknown>) => Transport;
}

/**
 * `environments move <alias> (--url URL | --ssh HOST[:PORT])` on any side: the same T3 machine at a
 * new address keeps its entry, its token and every other key; only the `url`/`ssh` key changes.
 * The machine must prove it is the same one (its descriptor announces the configured environmentId)
 * before anything is written, so a move can never point a token at another machine.
 */
export async function moveEnvironmentInConfig(request: MoveEnvironmentRequest): Promise<MovedEnvironment> {
  const { alias, configPath } = request;
  const document = await loadExistingConfigDocument(configPath, request.configName);
  request.validate(document);
  const entry = configuredEntry(document, alias, configPath);
  const transport = (request.parseTransport ?? parseTransportOption)(request.transport, entry);
  const configuredId = String(entry.environmentId);
  const from = describeEntryTransport(entry);
  const to = describeTransport(transport);
  const { environmentId } = await withBaseUrl(transport, (baseUrl) =>
    probeEnvironmentId(baseUrl, to, request.fetch),
  );
  if (environmentId !== configuredId) {
    throw new ConnectorError(
      "environment_mismatch",
      `${to} announces environmentId ${environmentId}, but "${alias}" is ${configuredId}: that is a different ` +
        `T3 machine, and its token would not be valid there. For a different machine run environments remove ${alias}, ` +
        `then environments add ${alias} with a new pairing code; ${configPath} was not changed`,
      { details: { path: configPath, alias, expected: configuredId, announced: environmentId } },
    );
  }
  const { url: _url, ssh: _ssh, ...kept } = entry;
  const moved = { ...kept, ...transportConfigKeys(transport) };
  const unchanged = JSON.stringify(transportKeysOf(entry)) === JSON.stringify(transportConfigKeys(transport));
  if (!unchanged) {
    const next = { ...document, environments: { ...environmentsOf(document), [alias]: moved } };
    await saveConfigDocument(configPath, next, request.validate);
  }
  return { alias, configPath, from, to, environmentId, unchanged };
}

/** The entry's `url` or `ssh` key as stored, for the idempotence check. */
function transportKeysOf(entry: Record<string, unknown>): unknown {
  if (typeof entry.url === "string") return { url: entry.url };
  const ssh = entry.ssh as { host?: unknown; remotePort?: unknown } | undefined;
  return { ssh: { host: ssh?.host, remotePort: ssh?.remotePort ?? DEFAULT_REMOTE_PORT } };
}

/** The entry's current address in `describeTransport`'s words (the config was validated). */
function describeEntryTransport(entry: Record<string, unknown>): string {
  if (typeof entry.url === "string") return describeTransport({ kind: "url", url: entry.url });
  const ssh = entry.ssh as { host: string; remotePort?: number };
  return describeTransport({
    kind: "ssh",
    host: ssh.host,
    remotePort: ssh.remotePort ?? DEFAULT_REMOTE_PORT,
  });
}
