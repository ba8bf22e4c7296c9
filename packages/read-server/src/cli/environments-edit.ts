import { homedir } from "node:os";
import { ConnectorError } from "@t3-connector/core";
import { configPathContext, type TerminalPrompt, terminalPrompt } from "@t3-connector/core/cli-support";
import {
  expandHome,
  parseReadConfig,
  type ReadEnvironmentConfig,
  readConfigPath,
  readTokenFile,
} from "@t3-connector/core/config";
import {
  checkNewAlias,
  defaultTokenFile,
  describeTransport,
  discardTokenFile,
  environmentsOf,
  loadConfigDocument,
  type OperateConfigName,
  type OperateConfigPlan,
  parseTransportOption,
  planOperateConfigs,
  probeEnvironmentId,
  readPairingCode,
  readPairingCodes,
  refuseExisting,
  removeEnvironmentFromConfig,
  saveConfigDocument,
  type TransportOption,
  transportConfigKeys,
  withBaseUrl,
} from "@t3-connector/core/pairing";
import { T3HttpClient } from "@t3-connector/core/t3";
import {
  addFailedHint,
  addOperateConfigs,
  CODE_PURPOSES,
  chooseOperateConfigs,
  readClientLabel,
  revokeAdvice,
} from "./also-configs.js";
import { diagnoseEnvironments } from "./diagnose.js";
import { type CliIo, writeJson } from "./io.js";
import { pairEnvironment } from "./pair.js";
import { chooseProjects, type LiveProject, type ProjectsOption } from "./project-choice.js";

export interface AddEnvironmentRequest {
  alias: string;
  transport: TransportOption;
  /** `all`, a list of projectIds, or undefined to choose in the terminal. */
  projects?: ProjectsOption;
  /** The other configs to fill with an operate token; undefined asks on a terminal. */
  also?: OperateConfigName[];
}

/** The config loader's check; a config that names no environment (yet, or any more) is left as is. */
function validator(io: CliIo, path: string) {
  return (document: unknown) => {
    if (Object.keys(environmentsOf(document as Record<string, unknown>)).length === 0) return;
    parseReadConfig(document, { path, ...(io.homeDir ? { homeDir: io.homeDir } : {}) });
  };
}

/**
 * `t3-connector environments add <alias> (--url URL | --ssh HOST[:PORT]) [--projects all|ID,…]
 * [--also write,ops|none]`: finds the environmentId from the server's descriptor, spends the
 * pairing code (stdin) on a token of exactly `orchestration:read`, lets the user pick the projects
 * the read server may show, writes the token file and the config atomically, then verifies the new
 * environment like `diagnose`. With `--also` (or a yes on a terminal) a second code becomes one
 * operate token for write.json and ops.json (also-configs.ts). Nothing is spent before the alias,
 * the address and every config that will change have been checked.
 */
export async function addEnvironmentCommand(io: CliIo, request: AddEnvironmentRequest): Promise<number> {
  checkNewAlias(request.alias);
  const transport = parseTransportOption(request.transport);
  const path = readConfigPath(configPathContext(io));
  const document = await loadConfigDocument(path, "read config", () => ({ environments: {} }));
  validator(io, path)(document);
  refuseExisting(document, request.alias, undefined, path);

  const where = describeTransport(transport);
  const fetcher = io.fetch ?? globalThis.fetch;
  const { environmentId } = await withBaseUrl(transport, (baseUrl) =>
    probeEnvironmentId(baseUrl, where, fetcher),
  );
  refuseExisting(document, request.alias, environmentId, path);

  const prompt = terminalPrompt(io);
  try {
    if (request.projects === undefined && prompt === undefined) {
      throw new ConnectorError(
        "invalid_input",
        "without a terminal to choose in, give --projects all or --projects ID,ID; the pairing code was not used",
      );
    }
    const tokenFile = defaultTokenFile(path, request.alias, "read");
    const entry: ReadEnvironmentConfig = {
      alias: request.alias,
      environmentId,
      transport,
      tokenFile,
      allowedProjects: [],
    };
    const plans = await planOperateSide(io, request, entry, document, prompt);
    const [code, operateCode] =
      plans.length === 0
        ? [await readPairingCode(io, prompt)]
        : await readPairingCodes(io, [CODE_PURPOSES.read, CODE_PURPOSES.operate], prompt);
    const paired = await addReadSide(io, { request, entry, document, path, code: code as string, prompt });
    const operate =
      operateCode === undefined
        ? undefined
        : await addOperateConfigs(io, {
            alias: request.alias,
            environmentId,
            transport,
            plans,
            code: operateCode,
            key: "alsoAdded",
            ifFailed: addFailedHint(request.alias),
          });
    const [diagnosis] = await diagnoseEnvironments(io, [entry]);
    const ok = diagnosis?.ok === true && operate?.ok !== false;
    // The same keys as every CLI's `environments add` (docs/cli.md): alias, configPath, tokenFile.
    writeJson(io, {
      alias: request.alias,
      configPath: path,
      tokenFile,
      scopes: paired.scopes,
      ok,
      diagnosis,
      ...operate?.report,
      revoke: [revokeAdvice("read", [tokenFile], readClientLabel()), ...(operate?.revoke ?? [])],
    });
    return ok ? 0 : 1;
  } finally {
    prompt?.close();
  }
}

/** Which operate configs to fill, checked against their files before any code is spent. */
async function planOperateSide(
  io: CliIo,
  request: AddEnvironmentRequest,
  entry: ReadEnvironmentConfig,
  document: Record<string, unknown>,
  prompt: TerminalPrompt | undefined,
): Promise<OperateConfigPlan[]> {
  const names = await chooseOperateConfigs(request.also, request.alias, prompt);
  if (names.length === 0) return [];
  const readTokenFiles = Object.values(environmentsOf(document))
    .map((other) => other.tokenFile)
    .filter((file): file is string => typeof file === "string")
    .map((file) => expandHome(file, io.homeDir ?? homedir()));
  return planOperateConfigs({
    names,
    alias: entry.alias,
    environmentId: entry.environmentId,
    transport: entry.transport,
    readTokenFiles: [entry.tokenFile, ...readTokenFiles],
    context: configPathContext(io),
  });
}

interface ReadSide {
  request: AddEnvironmentRequest;
  entry: ReadEnvironmentConfig;
  document: Record<string, unknown>;
  path: string;
  code: string;
  prompt: TerminalPrompt | undefined;
}

/** Pairs the read token, lets the user choose the projects, saves the read config. */
async function addReadSide(io: CliIo, side: ReadSide) {
  const { request, entry, path } = side;
  const fetcher = io.fetch ?? globalThis.fetch;
  const paired = await pairEnvironment(io, entry, side.code);
  try {
    const live = await withBaseUrl(entry.transport, (baseUrl) =>
      liveProjects(baseUrl, entry.tokenFile, fetcher),
    );
    entry.allowedProjects = await chooseProjects(live, request.projects, side.prompt, io);
    const next = {
      ...side.document,
      environments: {
        ...environmentsOf(side.document),
        [request.alias]: {
          environmentId: entry.environmentId,
          ...transportConfigKeys(entry.transport),
          tokenFile: entry.tokenFile,
          allowedProjects: entry.allowedProjects,
        },
      },
    };
    await saveConfigDocument(path, next, validator(io, path));
  } catch (error) {
    // The config does not name this token: leave no orphan token file behind.
    await discardTokenFile(entry.tokenFile);
    throw error;
  }
  return paired;
}

/** Live (not deleted) projects, read with the new token. */
async function liveProjects(
  baseUrl: string,
  tokenFile: string,
  fetcher: typeof fetch,
): Promise<LiveProject[]> {
  const token = await readTokenFile(tokenFile);
  const shell = await new T3HttpClient({ baseUrl, token, fetch: fetcher }).getShell({
    signal: AbortSignal.timeout(15_000),
  });
  return shell.projects
    .filter((project) => !project.deletedAt)
    .map((project) => ({ projectId: project.id, title: project.title }));
}

/**
 * `t3-connector environments remove <alias>`: takes it out of the config (and `default` when it
 * named it) and deletes its token file. The token stays valid on the T3 side until revoked there.
 */
export async function removeEnvironmentCommand(io: CliIo, alias: string): Promise<number> {
  const configPath = readConfigPath(configPathContext(io));
  const validate = validator(io, configPath);
  const request = { alias, configPath, configName: "read config", homeDir: io.homeDir, validate };
  writeJson(io, await removeEnvironmentFromConfig(request));
  return 0;
}
