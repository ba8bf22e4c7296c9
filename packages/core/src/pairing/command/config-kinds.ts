import { hostname } from "node:os";
import { dirname, join } from "node:path";
import {
  type ConfigOwner,
  type EnvironmentConfig,
  loadReadConfig,
  loadWriteConfig,
  opsConfigPath,
  type PathContext,
  parseReadConfig,
  parseWriteConfig,
  readConfigPath,
  type Transport,
  writeConfigPath,
} from "../../config/index.js";
import { OPERATE_SCOPES, READ_SCOPES } from "../../environments/index.js";
import { parseTransportOption } from "../add-environment.js";
import { NEW_WRITE_CONFIG_PORT } from "../operate-configs.js";
import type { TransportOption } from "./requests.js";

/**
 * The three config files one environments command edits, each described once: which CLI owns
 * it, where it lives, what a fresh one holds, the exact scope set its tokens must have and how
 * its loader checks it. The command's steps are the same for all three; what differs is here.
 */

/** One configured environment as the command sees it, whatever the file. */
export interface ConfiguredEnvironment extends EnvironmentConfig {
  /** The read config's projects: the read server shows these, and those under `allowedProjectRoots`. */
  allowedProjects?: readonly string[];
  /** The read config's folders whose projects the read server shows too (ADR 0074). */
  allowedProjectRoots?: readonly string[];
  /** ops' extra names of the environment. */
  aliases?: readonly string[];
  /** ops: plain http to another host allowed for this entry. */
  insecureHttp?: boolean;
}

export interface LoadedEnvironments {
  /** The file, or what stood for it (ops' inline `$T3_CONNECTOR_OPS_ENVIRONMENTS`). */
  path: string;
  environments: ConfiguredEnvironment[];
}

export interface EnvironmentsConfigKind {
  owner: ConfigOwner;
  /** The CLI that owns the file, as the user types it (messages and the T3 session's label). */
  program: "t3-connector" | "t3-connector-write" | "t3-connector-ops";
  /** How messages name the file: `read config`, `write config`, `ops config`. */
  configName: string;
  /** `tokens/<alias>.<tokenName>.token` beside the file. */
  tokenName: "read" | "operate" | "ops";
  /** The exact scope set a token of this file must hold (never more, never less). */
  scopes: readonly string[];
  /** The scope set in words, for `scope_not_granted`. */
  scopeWords: string;
  /** Whether the file limits the projects shown (the read config): add chooses them, diagnose checks them. */
  limitsProjects: boolean;
  defaultPath(context: PathContext): string;
  /** What `environments add` starts from when the file does not exist. */
  freshDocument(path: string): Record<string, unknown>;
  /** The file's loader check of a whole document; answers its environments. */
  parse(document: unknown, options: { path: string; homeDir?: string }): LoadedEnvironments;
  /** Loads the file as its CLI does (`path` given: that file). */
  load(context: PathContext, path?: string): Promise<LoadedEnvironments>;
  /** The address of a new or moved entry; `insecureHttp` is ops' allowance for that entry. */
  parseTransport(option: TransportOption, insecureHttp: boolean): Transport;
}

/** The label T3 shows for a session this CLI paired, e.g. `t3-connector-write (host)`. */
export function clientLabelOf(kind: Pick<EnvironmentsConfigKind, "program">): string {
  return `${kind.program} (${hostname()})`;
}

/** `config.json`: tokens of exactly `orchestration:read`, and the projects the read server shows. */
export const READ_CONFIG: EnvironmentsConfigKind = {
  owner: "read",
  program: "t3-connector",
  configName: "read config",
  tokenName: "read",
  scopes: READ_SCOPES,
  scopeWords: "orchestration:read",
  limitsProjects: true,
  defaultPath: readConfigPath,
  freshDocument: () => ({ environments: {} }),
  parse: (document, options) => parseReadConfig(document, options),
  load: (context, path) => loadReadConfig({ ...context, ...(path === undefined ? {} : { path }) }),
  parseTransport: (option) => parseTransportOption(option),
};

/** `write.json`: the gate's operate tokens; a new file gets the gate's port and a state directory. */
export const WRITE_CONFIG: EnvironmentsConfigKind = {
  owner: "write",
  program: "t3-connector-write",
  configName: "write config",
  tokenName: "operate",
  scopes: OPERATE_SCOPES,
  scopeWords: "read + operate",
  limitsProjects: false,
  defaultPath: writeConfigPath,
  freshDocument: (path) => ({
    port: NEW_WRITE_CONFIG_PORT,
    stateDir: join(dirname(path), "state"),
    environments: {},
  }),
  parse: (document, options) => parseWriteConfig(document, options),
  load: (context, path) => loadWriteConfig({ ...context, ...(path === undefined ? {} : { path }) }),
  parseTransport: (option) => parseTransportOption(option),
};

/** What ops supplies: its schema lives in the ops package, which core cannot import. */
export interface OpsConfigSchema {
  parse(document: unknown, options: { path: string; homeDir?: string }): LoadedEnvironments;
  load(context: PathContext & { path?: string }): Promise<LoadedEnvironments>;
}

/**
 * `ops.json`: the operator's operate tokens, with extra names and `insecureHttp`. An entry allowed
 * plain http to another host keeps that allowance for its new address; ops' schema checks the URL.
 */
export function opsConfigKind(schema: OpsConfigSchema): EnvironmentsConfigKind {
  return {
    owner: "ops",
    program: "t3-connector-ops",
    configName: "ops config",
    tokenName: "ops",
    scopes: OPERATE_SCOPES,
    scopeWords: "read + operate",
    limitsProjects: false,
    defaultPath: opsConfigPath,
    freshDocument: () => ({ environments: {} }),
    parse: (document, options) => schema.parse(document, options),
    load: (context, path) => schema.load({ ...context, ...(path === undefined ? {} : { path }) }),
    parseTransport: (option, insecureHttp) =>
      "url" in option && insecureHttp ? { kind: "url", url: option.url } : parseTransportOption(option),
  };
}
