/**
 * `environments add`: registers one environment in ops.json like the read and write sides do:
 * probe the server for its environmentId, spend a pairing code for exactly read + operate, save
 * the token file (0600 in a 0700 directory), then write the config. Nothing is written unless
 * the pairing succeeded, and the config is validated with the new entry before the code is spent.
 */
import { randomBytes } from "node:crypto";
import { chmod, mkdir, open, rename } from "node:fs/promises";
import { hostname } from "node:os";
import { dirname, join } from "node:path";
import { ConnectorError, isConnectorError } from "@t3-connector/core";
import { loadJsonFile } from "@t3-connector/core/config";
import { OPERATE_SCOPES } from "@t3-connector/core/environments";
import { pairEnvironment } from "@t3-connector/core/pairing";
import { T3HttpClient } from "@t3-connector/core/t3";
import { type OpsEnvironmentConfig, parseOpsConfig } from "./config.js";

export interface AddEnvironmentRequest {
  alias: string;
  url?: string;
  ssh?: { host: string; remotePort?: number };
  tokenFile: string;
  /** Required with ssh (the probe goes over HTTP); with url it is read from the server. */
  environmentId?: string;
  aliases?: string[];
  insecureHttp?: boolean;
  /** The pairing code (the code, its JSON or its URL already parsed to the code). */
  code: string;
}

export interface AddEnvironmentContext {
  configPath: string;
  homeDir?: string;
  fetch?: typeof fetch;
}

export interface AddEnvironmentResult {
  alias: string;
  environmentId: string;
  configPath: string;
  tokenFile: string;
  scopes: string[];
  expiresAt: string | null;
}

async function existingDocument(path: string): Promise<{ environments: Record<string, unknown> }> {
  try {
    const raw = (await loadJsonFile(path, "ops config")) as { environments?: Record<string, unknown> };
    return { ...raw, environments: { ...(raw.environments ?? {}) } };
  } catch (error) {
    if (isConnectorError(error, "config_not_found")) return { environments: {} };
    throw error;
  }
}

async function probeEnvironmentId(url: string, fetcher: typeof fetch): Promise<string> {
  const descriptor = await new T3HttpClient({ baseUrl: url, fetch: fetcher }).getDescriptor({
    signal: AbortSignal.timeout(15_000),
  });
  return descriptor.environmentId;
}

/** Writes through a temporary file and a rename, so a reader never sees half a config. */
async function writePrivateJson(path: string, value: unknown): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const temp = join(dirname(path), `.ops.json-${process.pid}-${randomBytes(4).toString("hex")}`);
  const handle = await open(temp, "wx", 0o600);
  try {
    await handle.writeFile(`${JSON.stringify(value, null, 2)}\n`, "utf8");
  } finally {
    await handle.close();
  }
  await chmod(temp, 0o600);
  await rename(temp, path);
}

export async function addEnvironment(
  request: AddEnvironmentRequest,
  context: AddEnvironmentContext,
): Promise<AddEnvironmentResult> {
  const fetcher = context.fetch ?? globalThis.fetch;
  const document = await existingDocument(context.configPath);
  if (Object.hasOwn(document.environments, request.alias)) {
    throw new ConnectorError(
      "invalid_input",
      `environment "${request.alias}" is already in ${context.configPath}`,
    );
  }
  if (request.url === undefined && request.environmentId === undefined) {
    throw new ConnectorError(
      "invalid_input",
      "an ssh environment needs --environment-id (the probe runs over url)",
    );
  }
  const entry = (environmentId: string) => ({
    environmentId,
    ...(request.url === undefined ? {} : { url: request.url }),
    ...(request.ssh === undefined ? {} : { ssh: request.ssh }),
    tokenFile: request.tokenFile,
    ...(request.aliases === undefined || request.aliases.length === 0 ? {} : { aliases: request.aliases }),
    ...(request.insecureHttp === true ? { insecureHttp: true } : {}),
  });
  const homeOption = context.homeDir === undefined ? {} : { homeDir: context.homeDir };
  const parse = (environmentId: string) =>
    parseOpsConfig(
      { ...document, environments: { ...document.environments, [request.alias]: entry(environmentId) } },
      { path: context.configPath, ...homeOption },
    );
  // Validate the shape before contacting anything (a placeholder id until the probe answers).
  const draft = parse(request.environmentId ?? "probing");
  const draftEntry = draft.environments.find((env) => env.alias === request.alias) as OpsEnvironmentConfig;
  const probed =
    draftEntry.transport.kind === "url"
      ? await probeEnvironmentId(draftEntry.transport.url, fetcher)
      : undefined;
  if (request.environmentId !== undefined && probed !== undefined && probed !== request.environmentId) {
    throw new ConnectorError(
      "environment_mismatch",
      `the server answers as ${probed}, not ${request.environmentId}; nothing was saved and the pairing code was not used`,
    );
  }
  const environmentId = request.environmentId ?? (probed as string);
  const config = parse(environmentId);
  const configured = config.environments.find((env) => env.alias === request.alias) as OpsEnvironmentConfig;
  const outcome = await pairEnvironment({
    entry: configured,
    code: request.code,
    scopes: OPERATE_SCOPES,
    fetch: fetcher,
    wording: {
      clientLabel: `t3-connector-ops (${hostname()})`,
      environmentMismatch: (expected, actual) =>
        new ConnectorError(
          "environment_mismatch",
          `environment "${expected.alias}" answered as ${actual}, expected ${expected.environmentId}; the pairing code was not used`,
        ),
      scopeMismatchMessage: "T3 granted a different scope set than read + operate",
    },
  });
  await writePrivateJson(context.configPath, {
    ...document,
    environments: { ...document.environments, [request.alias]: entry(environmentId) },
  });
  return {
    alias: request.alias,
    environmentId,
    configPath: context.configPath,
    tokenFile: outcome.savedTo,
    scopes: [...outcome.scopes].sort(),
    expiresAt: outcome.expiresAt,
  };
}
