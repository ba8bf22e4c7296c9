import { homedir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { refuseLegacyKeys, refuseWriteAllowlists } from "./legacy-keys.js";
import { loadJsonFile } from "./load-json.js";
import { type PathContext, writeConfigPath } from "./paths.js";
import {
  anchoredPathSchema,
  configInvalid,
  type EnvironmentConfig,
  environmentShape,
  projectRootsSchema,
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
  /**
   * Approval from afar (ADR 0050): the public origin `serve --http` answers at (its OAuth issuer),
   * where the approval page is reached through `serve`, and the OAuth profile's state directory,
   * whose passkeys approve there. Absent: the approval page answers on localhost only.
   */
  remoteApproval?: { origin: string; oauthStateDir: string };
  environments: EnvironmentConfig[];
}

const label = z.string().min(1).max(64);

function writeConfigSchema(homeDir: string) {
  const environment = z
    .strictObject({ ...environmentShape(homeDir), projectRoots: projectRootsSchema(homeDir) })
    .superRefine(refineTransport);
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
      remoteApproval: z
        .strictObject({
          origin: z.string().refine(isApprovalOrigin, {
            message: "must be the OAuth issuer: https://name[:port], or http://localhost:<port>",
          }),
          oauthStateDir: anchoredPathSchema(homeDir).optional(),
        })
        .optional(),
      environments: z.record(z.string(), environment),
    })
    .superRefine(refineEnvironments);
}

/** An origin only: https, or plain http on `localhost` with a port (trying it on one machine). */
function isApprovalOrigin(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  if (url.origin !== value.replace(/\/$/, "")) return false;
  return (
    url.protocol === "https:" || (url.protocol === "http:" && url.hostname === "localhost" && url.port !== "")
  );
}

/**
 * Where the OAuth profile keeps its state by default (the read side's `oauth.stateDir` default):
 * the same place, so one person's passkeys approve on both pages.
 */
function defaultOAuthStateDir(home: string, env: Record<string, string | undefined> = process.env): string {
  const base = env.XDG_STATE_HOME?.startsWith("/") ? env.XDG_STATE_HOME : join(home, ".local", "state");
  return join(base, "t3-connector", "oauth");
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
  if (data.remoteApproval !== undefined) {
    config.remoteApproval = {
      origin: new URL(data.remoteApproval.origin).origin,
      oauthStateDir: data.remoteApproval.oauthStateDir ?? defaultOAuthStateDir(options.homeDir ?? homedir()),
    };
  }
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
