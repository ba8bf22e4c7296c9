import { homedir } from "node:os";
import { z } from "zod";
import { refuseLegacyKeys } from "./legacy-keys.js";
import { loadJsonFile } from "./load-json.js";
import { type PathContext, readConfigPath } from "./paths.js";
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

export interface ReadEnvironmentConfig extends EnvironmentConfig {
  /**
   * projectIds this environment may show. Empty only when `allowedProjectRoots` is given (the file
   * may then leave it out); a list written empty is refused (it would not mean "all").
   */
  allowedProjects: string[];
  /**
   * Folders whose projects this environment shows too (ADR 0074): a project whose workspaceRoot
   * lies under one, walked without following a symlink out of it. A URL environment only.
   */
  allowedProjectRoots?: string[];
}

/**
 * The optional `events` section: where `t3-connector events` (and `serve --http`, which runs the
 * follower inside) delivers thread events. Field names match the command's flags; a flag given on
 * the command line overrides its field. Event type names are checked by the events package (the
 * one list of them), not here.
 */
export interface ReadEventsConfig {
  hookUrl: string;
  hookSecretFile: string;
  stateDir?: string;
  environments?: string[];
  projects?: string[];
  types?: string[];
  maxAttempts?: number;
  maxAgeHours?: number;
  /** How long a waiting event is held before it is sent; answered meanwhile, neither is sent. */
  graceSeconds?: number;
}

export interface ReadConfig {
  /** The file it came from (for messages). */
  path: string;
  /**
   * Informational only, and present only when the file has one: reads have no default
   * environment, so nothing may invent one (a listing that showed the first alias as "default"
   * contradicted the docs).
   */
  default?: string;
  /** In the order of the file. */
  environments: ReadEnvironmentConfig[];
  events?: ReadEventsConfig;
  /**
   * The optional `oauth` section of `serve --http` (the OAuth session profile). Kept as written:
   * the oauth package owns its fields and checks them (naming `oauth.<field>` on a problem).
   */
  oauth?: Record<string, unknown>;
}

function eventsSectionSchema(homeDir: string) {
  const names = z.array(z.string().trim().min(1)).min(1, { message: "list at least one, or leave it out" });
  return z.strictObject({
    hookUrl: z.string().trim().min(1),
    hookSecretFile: anchoredPathSchema(homeDir),
    stateDir: anchoredPathSchema(homeDir).optional(),
    environments: names.optional(),
    projects: names.optional(),
    types: names.optional(),
    maxAttempts: z.number().int().positive().optional(),
    maxAgeHours: z.number().positive().optional(),
    graceSeconds: z.number().nonnegative().max(3600).optional(),
  });
}

function readConfigSchema(homeDir: string) {
  const environment = z
    .strictObject({
      ...environmentShape(homeDir),
      allowedProjects: z
        .array(z.string().trim().min(1))
        .min(1, {
          message: "must list at least one projectId (an empty list blocks start-up; it does not mean all)",
        })
        .optional(),
      allowedProjectRoots: projectRootsSchema(homeDir).refine(
        (roots) => roots === undefined || roots.length > 0,
        { message: "list at least one folder, or leave it out" },
      ),
    })
    .superRefine(refineTransport)
    .superRefine((environment, context) => {
      // The person's config names what is shown: by id, by folder, or both; never nothing.
      if (environment.allowedProjects === undefined && environment.allowedProjectRoots === undefined) {
        context.addIssue({
          code: "custom",
          path: ["allowedProjects"],
          message:
            "list the projectIds this environment shows (allowedProjects), or the folders (allowedProjectRoots)",
        });
      }
      // A project's folder is walked on this machine; an SSH environment's folders are not here.
      if (environment.allowedProjectRoots !== undefined && environment.ssh !== undefined) {
        context.addIssue({
          code: "custom",
          path: ["allowedProjectRoots"],
          message:
            "needs an environment on this machine (url): an ssh environment's folders cannot be walked here",
        });
      }
    });
  return z
    .strictObject({
      default: z.string().optional(),
      environments: z.record(z.string(), environment),
      events: eventsSectionSchema(homeDir).optional(),
      oauth: z.record(z.string(), z.unknown()).optional(),
    })
    .superRefine(refineEnvironments)
    .superRefine((config, context) => {
      // An events filter naming no configured environment would silently follow nothing.
      const known = new Set(
        Object.entries(config.environments).flatMap(([alias, env]) => [alias, env.environmentId]),
      );
      for (const [index, name] of (config.events?.environments ?? []).entries()) {
        if (!known.has(name)) {
          context.addIssue({
            code: "custom",
            path: ["events", "environments", index],
            message: `"${name}" is not a configured environment alias or environmentId`,
          });
        }
      }
    });
}

/** Validates an already parsed read config document. `path` only labels messages. */
export function parseReadConfig(raw: unknown, options: { path: string; homeDir?: string }): ReadConfig {
  refuseLegacyKeys(raw, "read", options.path);
  const parsed = readConfigSchema(options.homeDir ?? homedir()).safeParse(raw);
  if (!parsed.success) throw configInvalid(options.path, parsed.error);
  const environments = Object.entries(parsed.data.environments).map(([alias, environment]) => ({
    ...toEnvironmentConfig(alias, environment),
    allowedProjects: environment.allowedProjects ?? [],
    ...(environment.allowedProjectRoots === undefined
      ? {}
      : { allowedProjectRoots: environment.allowedProjectRoots }),
  }));
  const { events, oauth } = parsed.data;
  return {
    path: options.path,
    ...(parsed.data.default === undefined ? {} : { default: parsed.data.default }),
    environments,
    ...(events === undefined ? {} : { events: withoutUndefined(events) }),
    ...(oauth === undefined ? {} : { oauth }),
  };
}

/** Loads `T3_CONNECTOR_CONFIG` or `~/.config/t3-connector/config.json`. */
export async function loadReadConfig(context: PathContext & { path?: string } = {}): Promise<ReadConfig> {
  const path = context.path ?? readConfigPath(context);
  const raw = await loadJsonFile(path, "read config");
  return parseReadConfig(raw, context.homeDir === undefined ? { path } : { path, homeDir: context.homeDir });
}

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as T;
}
