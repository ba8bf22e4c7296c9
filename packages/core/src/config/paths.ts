import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";

/** Where the configs live unless an environment variable points elsewhere. */
export const READ_CONFIG_ENV = "T3_CONNECTOR_CONFIG";
export const WRITE_CONFIG_ENV = "T3_CONNECTOR_WRITE_CONFIG";
export const OPS_CONFIG_ENV = "T3_CONNECTOR_OPS_CONFIG";
/** Inline ops config JSON; when set, ops reads it instead of any file. */
export const OPS_ENVIRONMENTS_ENV = "T3_CONNECTOR_OPS_ENVIRONMENTS";

export interface PathContext {
  /** The user's home directory; injected so tests never depend on the real one. */
  homeDir?: string;
  /** Environment variables; defaults to `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
}

function home(context: PathContext): string {
  return context.homeDir ?? homedir();
}

/** Expands a leading `~` or `~/`; other paths are returned unchanged. */
export function expandHome(path: string, homeDir: string): string {
  if (path === "~") return homeDir;
  if (path.startsWith("~/")) return join(homeDir, path.slice(2));
  return path;
}

/** True for paths that mean the same file whatever the working directory is. */
export function isAnchoredPath(path: string): boolean {
  return path === "~" || path.startsWith("~/") || isAbsolute(path);
}

function configPath(context: PathContext, variable: string, fileName: string): string {
  const fromEnv = (context.env ?? process.env)[variable];
  if (fromEnv !== undefined && fromEnv.trim() !== "") return expandHome(fromEnv.trim(), home(context));
  return join(home(context), ".config", "t3-connector", fileName);
}

export function readConfigPath(context: PathContext = {}): string {
  return configPath(context, READ_CONFIG_ENV, "config.json");
}

export function writeConfigPath(context: PathContext = {}): string {
  return configPath(context, WRITE_CONFIG_ENV, "write.json");
}

/** Here rather than in ops because the read CLI's `environments add --also ops` writes this file too. */
export function opsConfigPath(context: PathContext = {}): string {
  return configPath(context, OPS_CONFIG_ENV, "ops.json");
}
