import { mkdir, unlink } from "node:fs/promises";
import { dirname, join } from "node:path";
import { writeFileAtomically } from "../config/atomic-write.js";
import { loadJsonFile } from "../config/load-json.js";
import {
  ALIAS_PATTERN,
  baseUrlSchema,
  DEFAULT_REMOTE_PORT,
  isSafeSshHost,
  type Transport,
} from "../config/schema-common.js";
import { SshTunnel } from "../environments/index.js";
import { ConnectorError, isConnectorError } from "../errors.js";
import { T3HttpClient } from "../t3/index.js";
import { nodeHttpFetch, type T3Fetch } from "../t3/node-http-fetch.js";

/**
 * The steps `environments add` and `environments remove` share on the read and the write side:
 * check the alias and the transport, find the environmentId from the descriptor, and change the
 * config file atomically. Pairing itself is `pairEnvironment`.
 */

export const PROBE_TIMEOUT_MS = 15_000;

import type { TransportOption } from "./command/requests.js";

/** Refuses an alias the config format would refuse, before any code is spent. */
export function checkNewAlias(alias: string): void {
  if (!ALIAS_PATTERN.test(alias)) {
    throw new ConnectorError(
      "invalid_input",
      `alias "${alias}" must match ^[a-z0-9-]+$ (lower-case letters, digits and -)`,
    );
  }
}

/** The transport an option names, checked by the same rules as the config file. */
export function parseTransportOption(option: TransportOption): Transport {
  if ("url" in option) {
    const parsed = baseUrlSchema.safeParse(option.url);
    if (!parsed.success) {
      const problem = parsed.error.issues[0]?.message ?? "is not valid";
      throw new ConnectorError("invalid_input", `--url ${option.url} ${problem}`);
    }
    return { kind: "url", url: parsed.data };
  }
  const match = /^([^:]+)(?::(\d+))?$/.exec(option.ssh);
  const host = match?.[1] ?? "";
  const port = match?.[2] === undefined ? DEFAULT_REMOTE_PORT : Number(match[2]);
  if (match === null || !isSafeSshHost(host)) {
    throw new ConnectorError(
      "invalid_input",
      `--ssh ${option.ssh} must be HOST or HOST:PORT with a plain host name (letters, digits, . _ -)`,
    );
  }
  if (!Number.isInteger(port) || port < 1 || port > 65_535) {
    throw new ConnectorError("invalid_input", `--ssh ${option.ssh}: the port must be 1-65535`);
  }
  return { kind: "ssh", host, remotePort: port };
}

/** The config file's `url` or `ssh` key for a transport. */
export function transportConfigKeys(
  transport: Transport,
): { url: string } | { ssh: { host: string; remotePort: number } } {
  return transport.kind === "url"
    ? { url: transport.url }
    : { ssh: { host: transport.host, remotePort: transport.remotePort } };
}

export function describeTransport(transport: Transport): string {
  return transport.kind === "url"
    ? transport.url
    : `ssh ${transport.host} (remote port ${transport.remotePort})`;
}

/**
 * Runs `use` with a base URL for `transport`: the URL itself, or a local port of our own SSH
 * tunnel, closed afterwards.
 */
export async function withBaseUrl<T>(transport: Transport, use: (baseUrl: string) => Promise<T>): Promise<T> {
  if (transport.kind === "url") return use(transport.url);
  const tunnel = new SshTunnel({ host: transport.host, remotePort: transport.remotePort });
  try {
    return await use(`http://127.0.0.1:${await tunnel.open()}`);
  } finally {
    await tunnel.close();
  }
}

/**
 * The environmentId the server announces at `/.well-known/t3/environment` (no token needed).
 * A server that does not answer it is not a T3 server we can pair with: say so, naming where we looked.
 */
export async function probeEnvironmentId(
  baseUrl: string,
  where: string,
  fetcher: T3Fetch = nodeHttpFetch,
): Promise<{ environmentId: string; label: string | null }> {
  try {
    const descriptor = await new T3HttpClient({ baseUrl, fetch: fetcher }).getDescriptor({
      signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
    });
    const label = (descriptor as { label?: unknown }).label;
    return { environmentId: descriptor.environmentId, label: typeof label === "string" ? label : null };
  } catch (error) {
    const reason = isConnectorError(error) ? error.toString() : "no answer";
    throw new ConnectorError(
      "environment_unavailable",
      `the T3 descriptor at ${where} (/.well-known/t3/environment) did not answer: ${reason}. ` +
        "Check the address and that T3 Code is running there; the pairing code was not used",
      { cause: error },
    );
  }
}

/** The config document as stored (unvalidated JSON), or a fresh one when the file does not exist. */
export async function loadConfigDocument(
  path: string,
  what: string,
  fresh: () => Record<string, unknown>,
): Promise<Record<string, unknown>> {
  try {
    const raw = await loadJsonFile(path, what);
    if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
      throw new ConnectorError("config_invalid", `${what} at ${path} is not a JSON object`, {
        details: { path },
      });
    }
    return raw as Record<string, unknown>;
  } catch (error) {
    if (isConnectorError(error, "config_not_found")) return fresh();
    throw error;
  }
}

/** `environments` of a config document, as a record (empty when absent). */
export function environmentsOf(document: Record<string, unknown>): Record<string, Record<string, unknown>> {
  const environments = document.environments;
  if (typeof environments !== "object" || environments === null || Array.isArray(environments)) return {};
  return environments as Record<string, Record<string, unknown>>;
}

/** Refuses an alias or an environmentId the config already has: adding never replaces. */
export function refuseExisting(
  document: Record<string, unknown>,
  alias: string,
  environmentId: string | undefined,
  configPath: string,
): void {
  const environments = environmentsOf(document);
  if (Object.hasOwn(environments, alias)) {
    throw new ConnectorError(
      "environment_exists",
      `${configPath} already has an environment "${alias}"; pick another alias, or run environments remove ${alias} first`,
      { details: { path: configPath, alias } },
    );
  }
  // ops entries may carry extra names (`aliases`); a new alias must not shadow one of them either.
  for (const [other, entry] of Object.entries(environments)) {
    const extra = entry?.aliases;
    if (Array.isArray(extra) && extra.includes(alias)) {
      throw new ConnectorError(
        "environment_exists",
        `${configPath} already uses "${alias}" as another name of "${other}"; pick another alias`,
        { details: { path: configPath, alias: other } },
      );
    }
  }
  if (environmentId === undefined) return;
  for (const [other, entry] of Object.entries(environments)) {
    if (entry?.environmentId === environmentId) {
      throw new ConnectorError(
        "environment_exists",
        `${configPath} already has this environment (environmentId ${environmentId}) as "${other}"; the pairing code was not used`,
        { details: { path: configPath, alias: other, environmentId } },
      );
    }
  }
}

/**
 * Where a new environment's token goes: `tokens/<alias>.<kind>.token` beside the config file. ops
 * keeps its operate token under its own name, so that beside write.json it never shares a file
 * with the gate's.
 */
export function defaultTokenFile(
  configPath: string,
  alias: string,
  kind: "read" | "operate" | "ops",
): string {
  return join(dirname(configPath), "tokens", `${alias}.${kind}.token`);
}

/**
 * Writes a config document atomically (mode 600), after `validate` accepted it. The directory is
 * created (mode 700) when missing.
 */
export async function saveConfigDocument(
  path: string,
  document: Record<string, unknown>,
  validate: (document: unknown) => void,
): Promise<void> {
  validate(document);
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  try {
    await writeFileAtomically(path, `${JSON.stringify(document, null, 2)}\n`);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "error";
    throw new ConnectorError("config_invalid", `cannot write ${path} (${code})`, {
      details: { path },
      cause: error,
    });
  }
}

/** The config document of a command that changes an existing entry: a missing file is an error. */
export function loadExistingConfigDocument(path: string, what: string): Promise<Record<string, unknown>> {
  return loadConfigDocument(path, what, () => {
    throw new ConnectorError("config_not_found", `${what} not found at ${path}`, { details: { path } });
  });
}

/** The entry of `alias` as stored; an unknown alias is refused, naming the configured ones. */
export function configuredEntry(
  document: Record<string, unknown>,
  alias: string,
  configPath: string,
): Record<string, unknown> {
  const environments = environmentsOf(document);
  const entry = environments[alias];
  if (entry === undefined) {
    throw new ConnectorError(
      "environment_unknown",
      `${configPath} has no environment "${alias}"; configured: ${Object.keys(environments).join(", ") || "none"}`,
      { details: { path: configPath } },
    );
  }
  return entry;
}

/** Removes `alias` from the document (and `default` when it named it); refuses an unknown alias. */
export function withoutEnvironment(
  document: Record<string, unknown>,
  alias: string,
  configPath: string,
): { document: Record<string, unknown>; removed: Record<string, unknown> } {
  const removed = configuredEntry(document, alias, configPath);
  const environments = environmentsOf(document);
  const { [alias]: _gone, ...rest } = environments;
  const next: Record<string, unknown> = { ...document, environments: rest };
  if (next.default === alias) delete next.default;
  return { document: next, removed };
}

/** What `environments remove` says: deleting the token file ends nothing on the T3 side. */
export const REVOKE_AT_T3_NOTE =
  "The token stays valid on the T3 machine until you revoke it there: on that machine, " +
  "`t3 auth session list` shows it by the label it was paired with, and `t3 auth session revoke <session-id>` ends it.";

/** Deletes a token file we wrote, when a later step failed; a missing file is fine. */
export async function discardTokenFile(path: string): Promise<void> {
  await unlink(path).catch(() => undefined);
}
