/**
 * The operator's config: `~/.config/t3-connector/ops.json`, or the file named by
 * T3_CONNECTOR_OPS_CONFIG, or the same JSON inline in T3_CONNECTOR_OPS_ENVIRONMENTS. Same strict
 * rules as the read and write configs (unknown keys refused, one of url/ssh, anchored tokenFile,
 * unique environmentIds), plus extra aliases and `insecureHttp`.
 */
import { homedir } from "node:os";
import { ConnectorError } from "@t3-connector/core";
import {
  ALIAS_PATTERN,
  baseUrlSchema,
  configInvalid,
  type EnvironmentConfig,
  expandHome,
  isAnchoredPath,
  loadJsonFile,
  OPS_ENVIRONMENTS_ENV,
  opsConfigPath,
  type PathContext,
  projectRootsSchema,
  refineEnvironments,
  refineTransport,
  sshSchema,
  toEnvironmentConfig,
} from "@t3-connector/core/config";
import type { RuntimeMode } from "@t3-connector/write-engine/actions";
import { z } from "zod";
import { RUNTIME_MODE_NAMES } from "./command-constants.js";

export interface OpsEnvironmentConfig extends EnvironmentConfig {
  /** Other names this environment answers to (the key of the entry is `alias`). */
  aliases: string[];
  insecureHttp: boolean;
}

export interface OpsConfig {
  /** The file it came from, or `$T3_CONNECTOR_OPS_ENVIRONMENTS` (for messages). */
  path: string;
  environments: OpsEnvironmentConfig[];
  /** The highest runtime mode a write may run an agent in (`--max-runtime-mode` overrides it). */
  maxRuntimeMode?: RuntimeMode;
}

function opsConfigSchema(homeDir: string) {
  const environment = z
    .strictObject({
      environmentId: z.string().trim().min(1),
      url: z.string().optional(),
      ssh: sshSchema.optional(),
      tokenFile: z
        .string()
        .min(1)
        .refine(isAnchoredPath, { message: "must be an absolute path or start with ~/" })
        .transform((value) => expandHome(value, homeDir)),
      aliases: z
        .array(z.string().regex(ALIAS_PATTERN, { message: "alias must match ^[a-z0-9-]+$" }))
        .optional(),
      insecureHttp: z.boolean().optional(),
      projectRoots: projectRootsSchema(homeDir),
    })
    .transform((raw, context) => {
      // The URL rules depend on insecureHttp, so they run here rather than in the field schema.
      let url: string | undefined;
      if (raw.url !== undefined) {
        const parsed = baseUrlSchemaFor(raw.insecureHttp === true).safeParse(raw.url);
        if (!parsed.success) {
          for (const issue of parsed.error.issues) {
            context.addIssue({ code: "custom", path: ["url"], message: issue.message });
          }
          return z.NEVER;
        }
        url = parsed.data;
      }
      return { ...raw, url };
    })
    .superRefine(refineTransport);
  return z
    .strictObject({
      environments: z.record(z.string(), environment),
      maxRuntimeMode: z.enum(RUNTIME_MODE_NAMES).optional(),
    })
    .superRefine(refineEnvironments)
    .superRefine(refineAliases);
}

/**
 * The read/write URL rules; with `insecureHttp` plain http may also reach another host (a network
 * that encrypts by itself, e.g. a tailnet). The other rules (no credentials, query or fragment) stay.
 */
function baseUrlSchemaFor(insecureHttp: boolean) {
  if (!insecureHttp) return baseUrlSchema;
  return z.string().transform((value, context) => {
    const isHttp = /^http:/i.test(value);
    // Checked as https so that only the loopback rule is lifted, then given back its scheme.
    const parsed = baseUrlSchema.safeParse(isHttp ? `https:${value.slice(5)}` : value);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) context.addIssue({ code: "custom", message: issue.message });
      return z.NEVER;
    }
    return isHttp ? `http:${parsed.data.slice(6)}` : parsed.data;
  });
}

/** Every name (entry keys and extra aliases) must point at one environment only. */
function refineAliases(
  value: { environments: Record<string, { aliases?: string[] | undefined }> },
  context: z.RefinementCtx,
): void {
  const owner = new Map<string, string>();
  for (const alias of Object.keys(value.environments)) owner.set(alias, alias);
  for (const [alias, environment] of Object.entries(value.environments)) {
    for (const extra of environment.aliases ?? []) {
      const other = owner.get(extra);
      if (other !== undefined && other !== alias) {
        context.addIssue({
          code: "custom",
          path: ["environments", alias, "aliases"],
          message: `"${extra}" already names environment "${other}"`,
        });
      }
      owner.set(extra, alias);
    }
  }
}

/** Validates an already parsed ops config document. `path` only labels messages. */
export function parseOpsConfig(raw: unknown, options: { path: string; homeDir?: string }): OpsConfig {
  const parsed = opsConfigSchema(options.homeDir ?? homedir()).safeParse(raw);
  if (!parsed.success) throw configInvalid(options.path, parsed.error);
  const environments = Object.entries(parsed.data.environments).map(([alias, environment]) => ({
    ...toEnvironmentConfig(alias, environment),
    aliases: environment.aliases ?? [],
    insecureHttp: environment.insecureHttp === true,
  }));
  const ceiling = parsed.data.maxRuntimeMode;
  return { path: options.path, environments, ...(ceiling === undefined ? {} : { maxRuntimeMode: ceiling }) };
}

/** Loads the inline JSON of T3_CONNECTOR_OPS_ENVIRONMENTS, else the config file. */
export async function loadOpsConfig(context: PathContext & { path?: string } = {}): Promise<OpsConfig> {
  const homeOption = context.homeDir === undefined ? {} : { homeDir: context.homeDir };
  const inline = (context.env ?? process.env)[OPS_ENVIRONMENTS_ENV];
  if (context.path === undefined && inline !== undefined && inline.trim() !== "") {
    const label = `$${OPS_ENVIRONMENTS_ENV}`;
    let raw: unknown;
    try {
      raw = JSON.parse(inline);
    } catch (error) {
      throw new ConnectorError("config_invalid", `${label} is not valid JSON: ${(error as Error).message}`);
    }
    return parseOpsConfig(raw, { path: label, ...homeOption });
  }
  const path = context.path ?? opsConfigPath(context);
  return parseOpsConfig(await loadJsonFile(path, "ops config"), { path, ...homeOption });
}
