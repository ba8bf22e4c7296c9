import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { z } from "zod";
import {
  OPS_ENVIRONMENTS_ENV,
  opsConfigPath,
  type PathContext,
  parseWriteConfig,
  readTokenFile,
  writeConfigPath,
  writeTokenFile,
} from "../config/index.js";
import { configInvalid, environmentShape, refineTransport, type Transport } from "../config/schema-common.js";
import { OPERATE_SCOPES } from "../environments/index.js";
import { ConnectorError } from "../errors.js";
import type { T3Fetch } from "../t3/node-http-fetch.js";
import {
  defaultTokenFile,
  discardTokenFile,
  environmentsOf,
  loadConfigDocument,
  refuseExisting,
  saveConfigDocument,
  transportConfigKeys,
} from "./add-environment.js";
import type { OperateConfigName } from "./operate-config-names.js";
import { type PairingOutcome, type PairingWording, pairEnvironment } from "./pair-environment.js";

/** The gate's port in a write config that `environments add` creates. */
export const NEW_WRITE_CONFIG_PORT = 7433;

export interface OperateConfigPlan {
  name: OperateConfigName;
  path: string;
  /** The environment's alias in this config. */
  alias: string;
  tokenFile: string;
  /** A new environment: the config with it, already validated. Absent when only the token is renewed. */
  added?: { next: Record<string, unknown>; validate(document: unknown): void };
}

export interface PlanOperateConfigsOptions {
  names: readonly OperateConfigName[];
  alias: string;
  environmentId: string;
  transport: Transport;
  /** Token files of the read config: an operate token never goes into one of them. */
  readTokenFiles: readonly string[];
  context: PathContext;
}

export async function planOperateConfigs(options: PlanOperateConfigsOptions): Promise<OperateConfigPlan[]> {
  const plans: OperateConfigPlan[] = [];
  for (const name of new Set(options.names)) {
    plans.push(name === "write" ? await planWrite(options) : await planOps(options));
  }
  const taken = new Set(options.readTokenFiles.map((path) => resolve(path)));
  for (const plan of plans) {
    if (taken.has(resolve(plan.tokenFile))) {
      throw new ConnectorError(
        "token_file_invalid",
        `${plan.tokenFile} would hold the operate token of ${plan.path}, but it is already a read token ` +
          "file; no pairing code was used",
      );
    }
    taken.add(resolve(plan.tokenFile));
  }
  return plans;
}

function withEntry(
  document: Record<string, unknown>,
  options: PlanOperateConfigsOptions,
  tokenFile: string,
): Record<string, unknown> {
  const entry = {
    environmentId: options.environmentId,
    ...transportConfigKeys(options.transport),
    tokenFile,
  };
  return { ...document, environments: { ...environmentsOf(document), [options.alias]: entry } };
}

async function planWrite(options: PlanOperateConfigsOptions): Promise<OperateConfigPlan> {
  const path = writeConfigPath(options.context);
  const validate = (document: unknown) => {
    parseWriteConfig(document, { path, ...homeOf(options.context) });
  };
  const document = await loadConfigDocument(path, "write config", () => ({
    port: NEW_WRITE_CONFIG_PORT,
    stateDir: join(dirname(path), "state"),
    environments: {},
  }));
  if (Object.keys(environmentsOf(document)).length > 0) validate(document);
  refuseExisting(document, options.alias, options.environmentId, path);
  const tokenFile = defaultTokenFile(path, options.alias, "operate");
  const next = withEntry(document, options, tokenFile);
  validate(next);
  return { name: "write", path, alias: options.alias, tokenFile, added: { next, validate } };
}

/**
 * ops.json's own schema lives in the ops package, which core cannot import; what is checked here
 * is what this command adds (an entry with the keys every config shares, an alias and an
 * environmentId no other entry uses). ops checks the whole file each time it loads it.
 */
async function planOps(options: PlanOperateConfigsOptions): Promise<OperateConfigPlan> {
  const path = opsConfigPath(options.context);
  const inline = (options.context.env ?? process.env)[OPS_ENVIRONMENTS_ENV];
  if (inline !== undefined && inline.trim() !== "") {
    throw new ConnectorError(
      "invalid_input",
      `${OPS_ENVIRONMENTS_ENV} is set, so ops reads its environments from it and not from ${path}; ` +
        "unset it, or leave ops out of --also. No pairing code was used",
    );
  }
  const document = await loadConfigDocument(path, "ops config", () => ({ environments: {} }));
  const environments = document.environments;
  if (environments !== undefined && (typeof environments !== "object" || Array.isArray(environments))) {
    throw new ConnectorError("config_invalid", `${path}: environments must be an object`, {
      details: { path },
    });
  }
  refuseExisting(document, options.alias, options.environmentId, path);
  const tokenFile = defaultTokenFile(path, options.alias, "ops");
  const next = withEntry(document, options, tokenFile);
  const home = options.context.homeDir ?? homedir();
  const entrySchema = z.strictObject(environmentShape(home)).superRefine(refineTransport);
  const validate = (document: unknown) => {
    const entry = environmentsOf(document as Record<string, unknown>)[options.alias];
    const parsed = entrySchema.safeParse(entry);
    if (!parsed.success) throw configInvalid(path, parsed.error);
  };
  validate(next);
  return { name: "ops", path, alias: options.alias, tokenFile, added: { next, validate } };
}

function homeOf(context: PathContext): { homeDir?: string } {
  return context.homeDir === undefined ? {} : { homeDir: context.homeDir };
}

export interface PairOperateConfigsOptions {
  plans: readonly OperateConfigPlan[];
  alias: string;
  environmentId: string;
  transport: Transport;
  code: string;
  wording: PairingWording;
  fetch?: T3Fetch;
}

/**
 * Spends `code` on one operate token (verified like every pairing: right server, exactly read +
 * operate), stores it in each plan's token file, then writes each new config. A new config that
 * could not be written leaves no token file behind; a renewed token file is never deleted.
 */
export async function pairOperateConfigs(options: PairOperateConfigsOptions): Promise<PairingOutcome> {
  const [first, ...rest] = options.plans;
  if (first === undefined) throw new ConnectorError("invalid_input", "no operate config to pair");
  const outcome = await pairEnvironment({
    entry: {
      alias: options.alias,
      environmentId: options.environmentId,
      transport: options.transport,
      tokenFile: first.tokenFile,
    },
    code: options.code,
    scopes: OPERATE_SCOPES,
    wording: options.wording,
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
  });
  const pending = options.plans.filter((plan) => plan.added !== undefined);
  try {
    const token = await readTokenFile(first.tokenFile);
    for (const plan of rest) await writeTokenFile(plan.tokenFile, token);
    while (pending.length > 0) {
      const plan = pending[0] as OperateConfigPlan & Required<Pick<OperateConfigPlan, "added">>;
      await saveConfigDocument(plan.path, plan.added.next, plan.added.validate);
      pending.shift();
    }
  } catch (error) {
    for (const plan of pending) await discardTokenFile(plan.tokenFile);
    throw error;
  }
  return outcome;
}
