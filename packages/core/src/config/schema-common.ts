import { z } from "zod";
import { ConnectorError } from "../errors.js";
import { expandHome, isAnchoredPath } from "./paths.js";

export const ALIAS_PATTERN = /^[a-z0-9-]+$/;
/** Only plain host names and addresses: nothing ssh could read as an option or a user@ spec. */
export const SSH_HOST_PATTERN = /^[A-Za-z0-9._-]+$/;
export const DEFAULT_REMOTE_PORT = 3773;

export type Transport = { kind: "url"; url: string } | { kind: "ssh"; host: string; remotePort: number };

/** What every environment has, in the read and the write config alike. */
export interface EnvironmentConfig {
  alias: string;
  environmentId: string;
  transport: Transport;
  /** Absolute path, `~` already expanded. */
  tokenFile: string;
  /**
   * The folders a project created or moved by a write may live under (write and ops configs only;
   * absent: none, so project folders are refused until the person adds one; ADR 0074).
   */
  projectRoots?: readonly string[];
}

export function isSafeSshHost(host: string): boolean {
  return SSH_HOST_PATTERN.test(host) && !host.startsWith("-");
}

const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "[::1]"]);

export function isLoopbackHostname(hostname: string): boolean {
  return LOOPBACK_NAMES.has(hostname.toLowerCase()) || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

/** A T3 base URL: https anywhere, plain http only to this machine (a bearer token travels on it). */
export const baseUrlSchema = z.string().transform((value, context) => {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    context.addIssue({ code: "custom", message: "is not a valid URL" });
    return z.NEVER;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    context.addIssue({ code: "custom", message: `must be https (got ${url.protocol})` });
    return z.NEVER;
  }
  if (url.protocol === "http:" && !isLoopbackHostname(url.hostname)) {
    context.addIssue({
      code: "custom",
      message: `must be https: plain http is only allowed on loopback (127.0.0.1, localhost, [::1]), not ${url.hostname}`,
    });
    return z.NEVER;
  }
  if (url.username !== "" || url.password !== "") {
    context.addIssue({ code: "custom", message: "must not carry credentials (use tokenFile)" });
    return z.NEVER;
  }
  if (url.search !== "" || url.hash !== "") {
    context.addIssue({ code: "custom", message: "must not have a query or a fragment" });
    return z.NEVER;
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
});

export const sshSchema = z.strictObject({
  host: z
    .string()
    .refine(isSafeSshHost, { message: "must match ^[A-Za-z0-9._-]+$ and must not start with '-'" }),
  remotePort: z.number().int().min(1).max(65_535).default(DEFAULT_REMOTE_PORT),
});

/** A file path that may start with `~/`; relative paths are refused because the cwd varies. */
export function anchoredPathSchema(homeDir: string) {
  return z
    .string()
    .min(1)
    .refine(isAnchoredPath, { message: "must be an absolute path or start with ~/" })
    .transform((value) => expandHome(value, homeDir));
}

/**
 * `projectRoots` of a write or ops environment: absolute (or `~/`), normalised folders, at most 32.
 * A root is where the person lets a model put new projects: `/` or the home folder itself would
 * let it reach anything, so they are refused.
 */
export function projectRootsSchema(homeDir: string) {
  return z
    .array(
      anchoredPathSchema(homeDir).refine(
        (value) =>
          value !== "/" &&
          value !== homeDir &&
          !value.endsWith("/") &&
          !/(^|\/)\.\.?(\/|$)/.test(value) &&
          !value.includes("//"),
        { message: "must be a normalised folder other than / and the home folder itself" },
      ),
    )
    .max(32)
    .optional();
}

/** The fields shared by read and write environments; strictness is applied by the caller. */
export function environmentShape(homeDir: string) {
  return {
    environmentId: z.string().trim().min(1),
    url: baseUrlSchema.optional(),
    ssh: sshSchema.optional(),
    tokenFile: anchoredPathSchema(homeDir),
  };
}

interface RawEnvironment {
  projectRoots?: string[] | undefined;
  environmentId: string;
  url?: string | undefined;
  ssh?: { host: string; remotePort: number } | undefined;
  tokenFile: string;
}

/** Cross-field rules of one environment: exactly one of url and ssh. */
export function refineTransport(environment: RawEnvironment, context: z.RefinementCtx): void {
  const count = (environment.url === undefined ? 0 : 1) + (environment.ssh === undefined ? 0 : 1);
  if (count !== 1) {
    context.addIssue({
      code: "custom",
      message: count === 0 ? "needs one of url or ssh" : "must have exactly one of url or ssh, not both",
    });
  }
}

export function toEnvironmentConfig(alias: string, environment: RawEnvironment): EnvironmentConfig {
  const transport: Transport =
    environment.ssh !== undefined
      ? { kind: "ssh", host: environment.ssh.host, remotePort: environment.ssh.remotePort }
      : { kind: "url", url: environment.url ?? "" };
  return {
    alias,
    environmentId: environment.environmentId,
    transport,
    tokenFile: environment.tokenFile,
    ...(environment.projectRoots === undefined ? {} : { projectRoots: environment.projectRoots }),
  };
}

/**
 * Aliases, uniqueness of environmentIds and the `default` alias, checked on the parsed record.
 * No environment at all is a valid state (the one `environments remove` leaves, and the one a new
 * user starts from): each command then says how to add one instead of refusing the file.
 */
export function refineEnvironments(
  value: { default?: string | undefined; environments: Record<string, RawEnvironment> },
  context: z.RefinementCtx,
): void {
  const aliases = Object.keys(value.environments);
  for (const alias of aliases) {
    if (!ALIAS_PATTERN.test(alias)) {
      context.addIssue({
        code: "custom",
        path: ["environments", alias],
        message: "alias must match ^[a-z0-9-]+$",
      });
    }
  }
  const seen = new Map<string, string>();
  for (const [alias, environment] of Object.entries(value.environments)) {
    const other = seen.get(environment.environmentId);
    if (other !== undefined) {
      context.addIssue({
        code: "custom",
        path: ["environments", alias, "environmentId"],
        message: `duplicates the environmentId of "${other}"`,
      });
    }
    seen.set(environment.environmentId, alias);
  }
  if (value.default !== undefined && !Object.hasOwn(value.environments, value.default)) {
    context.addIssue({
      code: "custom",
      path: ["default"],
      message: `names "${value.default}", which is not a configured alias`,
    });
  }
}

function formatPath(path: readonly PropertyKey[]): string {
  return path.length === 0 ? "(root)" : path.map(String).join(".");
}

/** One line per problem, each naming the key path, e.g. `environments.a.url: must be https`. */
export function formatIssues(error: z.ZodError): string[] {
  const lines: string[] = [];
  for (const issue of error.issues) {
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) lines.push(`${formatPath([...issue.path, key])}: unknown key`);
      continue;
    }
    const missing = issue.code === "invalid_type" && issue.message.endsWith("received undefined");
    lines.push(`${formatPath(issue.path)}: ${missing ? "is required" : issue.message}`);
  }
  return lines;
}

export function configInvalid(configPath: string, error: z.ZodError): ConnectorError {
  const problems = formatIssues(error);
  return new ConnectorError("config_invalid", `${configPath} is invalid: ${problems.join("; ")}`, {
    details: { problems },
  });
}
