/**
 * `environments add`: registers one environment in ops.json the way the read and write CLIs do,
 * with the same steps from core's pairing module: check the alias and the transport (`--url URL`
 * or `--ssh HOST[:PORT]`), find the environmentId from the server's descriptor (over our own ssh
 * tunnel for ssh), spend the pairing code on exactly read + operate, save the token file (0600 in
 * a 0700 directory, `tokens/<alias>.ops.token` beside ops.json unless told otherwise), then write
 * the config atomically. The config is validated with the new entry before the code is spent, and
 * a config that cannot be written leaves no token file behind.
 */
import { homedir, hostname } from "node:os";
import { ConnectorError } from "@t3-connector/core";
import { expandHome, type Transport } from "@t3-connector/core/config";
import { OPERATE_SCOPES } from "@t3-connector/core/environments";
import {
  checkNewAlias,
  defaultTokenFile,
  describeTransport,
  discardTokenFile,
  environmentsOf,
  loadConfigDocument,
  pairEnvironment,
  parseTransportOption,
  probeEnvironmentId,
  refuseExisting,
  saveConfigDocument,
  type TransportOption,
  transportConfigKeys,
  withBaseUrl,
} from "@t3-connector/core/pairing";
import { type OpsEnvironmentConfig, parseOpsConfig } from "./config.js";

export interface AddEnvironmentRequest {
  alias: string;
  /** `--url URL` or `--ssh HOST[:PORT]`, as typed. */
  transport: TransportOption;
  /** Where the token goes; default `tokens/<alias>.ops.token` beside the config. */
  tokenFile?: string;
  /** The environmentId expected; the server's descriptor must announce the same one. */
  environmentId?: string;
  aliases?: string[];
  insecureHttp?: boolean;
  /**
   * Reads the pairing code (the code, its JSON or its URL already parsed to the code); called
   * only once the alias, the address and the server's environmentId have passed every check.
   */
  readCode: () => Promise<string>;
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

type EntryKeys = Record<string, unknown>;

export async function addEnvironment(
  request: AddEnvironmentRequest,
  context: AddEnvironmentContext,
): Promise<AddEnvironmentResult> {
  const { configPath } = context;
  checkNewAlias(request.alias);
  const transport = transportOf(request);
  const document = await loadConfigDocument(configPath, "ops config", () => ({ environments: {} }));
  refuseExisting(document, request.alias, undefined, configPath);
  const tokenFile = request.tokenFile ?? defaultTokenFile(configPath, request.alias, "ops");
  const entryKeys = (environmentId: string): EntryKeys => ({
    environmentId,
    ...transportConfigKeys(transport),
    tokenFile,
    ...(request.aliases === undefined || request.aliases.length === 0 ? {} : { aliases: request.aliases }),
    ...(request.insecureHttp === true ? { insecureHttp: true } : {}),
  });
  const withEntry = (keys: EntryKeys) => ({
    ...document,
    environments: { ...environmentsOf(document), [request.alias]: keys },
  });
  const home = context.homeDir ?? homedir();
  const validate = (candidate: unknown) => parseOpsConfig(candidate, { path: configPath, homeDir: home });
  // The whole file with the new entry must load before anything is contacted (a placeholder id).
  validate(withEntry(entryKeys(request.environmentId ?? "probing")));
  const fetcher = context.fetch ?? globalThis.fetch;
  const environmentId = await probedEnvironmentId(transport, request.environmentId, fetcher);
  refuseExisting(document, request.alias, environmentId, configPath);
  const next = withEntry(entryKeys(environmentId));
  const entry = validate(next).environments.find(
    (env) => env.alias === request.alias,
  ) as OpsEnvironmentConfig;
  const outcome = await pairOps(entry, await request.readCode(), fetcher);
  try {
    await saveConfigDocument(configPath, next, validate);
  } catch (error) {
    await discardTokenFile(expandHome(tokenFile, home));
    throw error;
  }
  return {
    alias: request.alias,
    environmentId,
    configPath,
    tokenFile: outcome.savedTo,
    scopes: [...outcome.scopes].sort(),
    expiresAt: outcome.expiresAt,
  };
}

/**
 * The transport checked by the rules every config shares, except a URL with `--insecure-http`:
 * ops' own schema checks that one (plain http to another host allowed) before anything is contacted.
 */
function transportOf(request: AddEnvironmentRequest): Transport {
  if ("url" in request.transport && request.insecureHttp === true) {
    return { kind: "url", url: request.transport.url };
  }
  return parseTransportOption(request.transport);
}

/** The environmentId the server announces; when one was expected, it must be that one. */
async function probedEnvironmentId(
  transport: Transport,
  expected: string | undefined,
  fetcher: typeof fetch,
): Promise<string> {
  const { environmentId } = await withBaseUrl(transport, (baseUrl) =>
    probeEnvironmentId(baseUrl, describeTransport(transport), fetcher),
  );
  if (expected !== undefined && expected !== environmentId) {
    throw new ConnectorError(
      "environment_mismatch",
      `the server answers as ${environmentId}, not ${expected}; nothing was saved and the pairing code was not used`,
    );
  }
  return environmentId;
}

function pairOps(entry: OpsEnvironmentConfig, code: string, fetcher: typeof fetch) {
  return pairEnvironment({
    entry,
    code,
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
}
