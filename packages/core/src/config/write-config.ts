import { homedir } from "node:os";
import { z } from "zod";
import { refuseLegacyKeys, refuseWriteAllowlists } from "./legacy-keys.js";
import { loadJsonFile } from "./load-json.js";
import { type PathContext, writeConfigPath } from "./paths.js";
import {
  anchoredPathSchema,
  configInvalid,
  type EnvironmentConfig,
  environmentShape,
  refineEnvironments,
  refineTransport,
  toEnvironmentConfig,
} from "./schema-common.js";

export const TUNNEL_ID_PATTERN = /^tunnel_[a-zA-Z0-9]+$/;

export interface WriteConfig {
  path: string;
  /** Loopback port of the gate. */
  port: number;
  /** Absolute, `~` expanded. */
  stateDir: string;
  channel?: { organization: string; tunnelId: string };
  passkey?: { rpName?: string; userName?: string };
  /** Informational only, present only when the file has one: writes always name their environment. */
  default?: string;
  environments: EnvironmentConfig[];
}

const label = z.string().min(1).max(64);

function writeConfigSchema(homeDir: string) {
  const environment = z.strictObject(environmentShape(homeDir)).superRefine(refineTransport);
  return z
    .strictObject({
      port: z.number().int().min(1).max(65_535),
      stateDir: anchoredPathSchema(homeDir),
      channel: z
        .strictObject({
          organization: z.string().trim().min(1),
          tunnelId: z.string().regex(TUNNEL_ID_PATTERN, { message: "must match ^tunnel_[a-zA-Z0-9]+$" }),
        })
        .optional(),
      passkey: z.strictObject({ rpName: label.optional(), userName: label.optional() }).optional(),
      default: z.string().optional(),
      environments: z.record(z.string(), environment),
    })
    .superRefine(refineEnvironments);
}

/** Validates an already parsed write config document. `path` only labels messages. */
export function parseWriteConfig(raw: unknown, options: { path: string; homeDir?: string }): WriteConfig {
  refuseLegacyKeys(raw, "write", options.path);
  refuseWriteAllowlists(raw, options.path);
  const parsed = writeConfigSchema(options.homeDir ?? homedir()).safeParse(raw);
  if (!parsed.success) throw configInvalid(options.path, parsed.error);
  const { data } = parsed;
  const environments = Object.entries(data.environments).map(([alias, environment]) =>
    toEnvironmentConfig(alias, environment),
  );
  const config: WriteConfig = {
    path: options.path,
    port: data.port,
    stateDir: data.stateDir,
    environments,
  };
  if (data.default !== undefined) config.default = data.default;
  if (data.channel !== undefined) config.channel = data.channel;
  if (data.passkey !== undefined) {
    config.passkey = {};
    if (data.passkey.rpName !== undefined) config.passkey.rpName = data.passkey.rpName;
    if (data.passkey.userName !== undefined) config.passkey.userName = data.passkey.userName;
  }
  return config;
}

/** Loads `T3_CONNECTOR_WRITE_CONFIG` or `~/.config/t3-connector/write.json`. */
export async function loadWriteConfig(context: PathContext & { path?: string } = {}): Promise<WriteConfig> {
  const path = context.path ?? writeConfigPath(context);
  const raw = await loadJsonFile(path, "write config");
  return parseWriteConfig(raw, context.homeDir === undefined ? { path } : { path, homeDir: context.homeDir });
}
