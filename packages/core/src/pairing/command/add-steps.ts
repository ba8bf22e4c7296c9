import type { TerminalPrompt } from "../../cli-support/index.js";
import { configPathContext } from "../../cli-support/index.js";
import { readTokenFile, type Transport } from "../../config/index.js";
import { ConnectorError } from "../../errors.js";
import { T3HttpClient } from "../../t3/index.js";
import type { T3Fetch } from "../../t3/node-http-fetch.js";
import {
  checkNewAlias,
  defaultTokenFile,
  describeTransport,
  discardTokenFile,
  loadConfigDocument,
  probeEnvironmentId,
  refuseExisting,
  saveConfigDocument,
  transportConfigKeys,
  withBaseUrl,
} from "../add-environment.js";
import { type OperateConfigPlan, planOperateConfigs } from "../operate-configs.js";
import type { PairingOutcome } from "../pair-environment.js";
import { chooseOperateConfigs } from "./also-configs.js";
import {
  type EnvironmentsCommandContext,
  fetchOf,
  homeOf,
  validatorOf,
  withEntry,
} from "./command-context.js";
import type { ConfiguredEnvironment, EnvironmentsConfigKind } from "./config-kinds.js";
import { chooseProjects, type LiveProject } from "./project-choice.js";
import type { AddEnvironmentRequest } from "./requests.js";
import { pairForKind } from "./tokens.js";

/** The file as read, and what the new entry will be, checked before anything is contacted. */
export interface AddDraft {
  document: Record<string, unknown>;
  transport: Transport;
  /** As the file stores it (`~/` kept when given so). */
  storedTokenFile: string;
  /** Absolute, `~` expanded. */
  tokenFile: string;
  /** Every token file the file names once the entry is in, the new one included. */
  tokenFiles: string[];
}

/** The keys of the new entry, the same in every file, then what this file or request adds. */
function entryKeys(
  kind: EnvironmentsConfigKind,
  request: AddEnvironmentRequest,
  fields: { environmentId: string; transport: Transport; tokenFile: string; allowedProjects: string[] },
): Record<string, unknown> {
  return {
    environmentId: fields.environmentId,
    ...transportConfigKeys(fields.transport),
    tokenFile: fields.tokenFile,
    ...(kind.limitsProjects ? { allowedProjects: fields.allowedProjects } : {}),
    ...(request.aliases === undefined || request.aliases.length === 0 ? {} : { aliases: request.aliases }),
    ...(request.insecureHttp === true ? { insecureHttp: true } : {}),
  };
}

/**
 * Checks the alias, the address and the whole file with the new entry in it (a placeholder id and
 * project until the server answers), and refuses an alias the file already has.
 */
export async function draftNewEntry(
  context: EnvironmentsCommandContext,
  path: string,
  request: AddEnvironmentRequest,
): Promise<AddDraft> {
  const { kind } = context;
  checkNewAlias(request.alias);
  const transport = kind.parseTransport(request.transport, request.insecureHttp === true);
  const document = await loadConfigDocument(path, kind.configName, () => kind.freshDocument(path));
  refuseExisting(document, request.alias, undefined, path);
  const storedTokenFile = request.tokenFile ?? defaultTokenFile(path, request.alias, kind.tokenName);
  const placeholder = { environmentId: request.environmentId ?? "probing", allowedProjects: ["probing"] };
  const keys = entryKeys(kind, request, { ...placeholder, transport, tokenFile: storedTokenFile });
  const parsed = kind.parse(withEntry(document, request.alias, keys), { path, ...homeOf(context.io) });
  const added = parsed.environments.find((env) => env.alias === request.alias);
  return {
    document,
    transport,
    storedTokenFile,
    tokenFile: added?.tokenFile ?? storedTokenFile,
    tokenFiles: parsed.environments.map((env) => env.tokenFile),
  };
}

/** The environmentId the server announces; when one was expected, it must be that one. */
export async function probedEnvironmentId(
  transport: Transport,
  expected: string | undefined,
  fetcher: T3Fetch,
): Promise<string> {
  const { environmentId } = await withBaseUrl(transport, (baseUrl) =>
    probeEnvironmentId(baseUrl, describeTransport(transport), fetcher),
  );
  if (expected !== undefined && expected !== environmentId) {
    throw new ConnectorError(
      "environment_mismatch",
      `the server answers as ${environmentId}, not ${expected}; nothing was saved and the pairing code was not used`,
      { details: { expected, actual: environmentId } },
    );
  }
  return environmentId;
}

/** Which operate configs the read CLI fills too, checked against their files before any code is spent. */
export async function planOperateSide(
  context: EnvironmentsCommandContext,
  request: AddEnvironmentRequest,
  entry: ConfiguredEnvironment,
  draft: AddDraft,
  prompt: TerminalPrompt | undefined,
): Promise<OperateConfigPlan[]> {
  if (context.kind.owner !== "read") {
    if (request.also !== undefined && request.also.length > 0) {
      throw new ConnectorError(
        "invalid_input",
        "--also is the read CLI's: t3-connector environments add --also",
      );
    }
    return [];
  }
  const names = await chooseOperateConfigs(request.also, request.alias, prompt);
  if (names.length === 0) return [];
  return planOperateConfigs({
    names,
    alias: entry.alias,
    environmentId: entry.environmentId,
    transport: entry.transport,
    readTokenFiles: draft.tokenFiles,
    context: configPathContext(context.io),
  });
}

export interface NewEntry {
  path: string;
  draft: AddDraft;
  /** Gets its `allowedProjects` here when the file limits projects. */
  entry: ConfiguredEnvironment;
  code: string;
  request: AddEnvironmentRequest;
  prompt: TerminalPrompt | undefined;
}

/**
 * Pairs the token, lets the user choose the projects (a file that limits them), saves the file.
 * A file that could not be written leaves no token file behind.
 */
export async function saveNewEntry(
  context: EnvironmentsCommandContext,
  side: NewEntry,
): Promise<PairingOutcome> {
  const { kind, io } = context;
  const { entry, draft, request } = side;
  const paired = await pairForKind(kind, io, entry, side.code);
  try {
    let allowedProjects: string[] = [];
    if (kind.limitsProjects) {
      const live = await withBaseUrl(entry.transport, (baseUrl) =>
        liveProjects(baseUrl, entry.tokenFile, fetchOf(io)),
      );
      allowedProjects = await chooseProjects(live, request.projects, side.prompt, io);
      entry.allowedProjects = allowedProjects;
    }
    const fields = { environmentId: entry.environmentId, transport: entry.transport, allowedProjects };
    const keys = entryKeys(kind, request, { ...fields, tokenFile: draft.storedTokenFile });
    await saveConfigDocument(
      side.path,
      withEntry(draft.document, request.alias, keys),
      validatorOf(context, side.path),
    );
  } catch (error) {
    // The file does not name this token: leave no orphan token file behind.
    await discardTokenFile(entry.tokenFile);
    throw error;
  }
  return paired;
}

/** Live (not deleted) projects, read with the new token. */
async function liveProjects(baseUrl: string, tokenFile: string, fetcher: T3Fetch): Promise<LiveProject[]> {
  const token = await readTokenFile(tokenFile);
  const shell = await new T3HttpClient({ baseUrl, token, fetch: fetcher }).getShell({
    signal: AbortSignal.timeout(15_000),
  });
  return shell.projects
    .filter((project) => !project.deletedAt)
    .map((project) => ({ projectId: project.id, title: project.title }));
}
