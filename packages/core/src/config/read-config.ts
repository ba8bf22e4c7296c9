import { homedir } from "node:os";
import { z } from "zod";
import { refuseLegacyKeys } from "./legacy-keys.js";
import { loadJsonFile } from "./load-json.js";
import { type PathContext, readConfigPath } from "./paths.js";
import {
  configInvalid,
  type EnvironmentConfig,
  environmentShape,
  refineEnvironments,
  refineTransport,
  toEnvironmentConfig,
} from "./schema-common.js";

export interface ReadEnvironmentConfig extends EnvironmentConfig {
  /** projectIds this environment may show; never empty (an empty list would not mean "all"). */
  allowedProjects: string[];
}

export interface ReadConfig {
  /** The file it came from (for messages). */
  path: string;
  /** Informational only (CLI banner): reads have no default environment. */
  default: string;
  /** In the order of the file. */
  environments: ReadEnvironmentConfig[];
}

function readConfigSchema(homeDir: string) {
  const environment = z
    .strictObject({
      ...environmentShape(homeDir),
      allowedProjects: z.array(z.string().trim().min(1)).min(1, {
        message: "must list at least one projectId (an empty list blocks start-up; it does not mean all)",
      }),
    })
    .superRefine(refineTransport);
  return z
    .strictObject({
      default: z.string().optional(),
      environments: z.record(z.string(), environment),
    })
    .superRefine(refineEnvironments);
}

/** Validates an already parsed read config document. `path` only labels messages. */
export function parseReadConfig(raw: unknown, options: { path: string; homeDir?: string }): ReadConfig {
  refuseLegacyKeys(raw, "read", options.path);
  const parsed = readConfigSchema(options.homeDir ?? homedir()).safeParse(raw);
  if (!parsed.success) throw configInvalid(options.path, parsed.error);
  const environments = Object.entries(parsed.data.environments).map(([alias, environment]) => ({
    ...toEnvironmentConfig(alias, environment),
    allowedProjects: environment.allowedProjects,
  }));
  const first = environments[0]?.alias ?? "";
  return { path: options.path, default: parsed.data.default ?? first, environments };
}

/** Loads `T3_CONNECTOR_CONFIG` or `~/.config/t3-connector/config.json`. */
export async function loadReadConfig(context: PathContext & { path?: string } = {}): Promise<ReadConfig> {
  const path = context.path ?? readConfigPath(context);
  const raw = await loadJsonFile(path, "read config");
  return parseReadConfig(raw, context.homeDir === undefined ? { path } : { path, homeDir: context.homeDir });
}
