import { homedir } from "node:os";
import { expandHome } from "../config/paths.js";
import {
  discardTokenFile,
  environmentsOf,
  loadExistingConfigDocument,
  REVOKE_AT_T3_NOTE,
  saveConfigDocument,
  withoutEnvironment,
} from "./add-environment.js";

/** What every CLI's `environments remove` answers (docs/cli.md). */
export interface RemovedEnvironment {
  removed: string;
  configPath: string;
  /** The token file deleted (`~` expanded); null when the entry named none. */
  tokenFileRemoved: string | null;
  environmentsLeft: number;
  note: string;
}

export interface RemoveEnvironmentRequest {
  alias: string;
  configPath: string;
  /** How the not-found message names the file: `read config`, `write config`, `ops config`. */
  configName: string;
  /** For `~` in the token file's path; the user's home when not given. */
  homeDir?: string | undefined;
  /** The config loader's check of the document to write, also when no environment is left. */
  validate: (document: unknown) => void;
}

/**
 * `environments remove <alias>` on any side: the entry leaves the config (and `default` when it
 * named it), the file is checked and written atomically, then the entry's token file is deleted.
 * The token stays valid on the T3 side until revoked there, which the answer's note says.
 */
export async function removeEnvironmentFromConfig(
  request: RemoveEnvironmentRequest,
): Promise<RemovedEnvironment> {
  const { alias, configPath } = request;
  const document = await loadExistingConfigDocument(configPath, request.configName);
  const { document: next, removed } = withoutEnvironment(document, alias, configPath);
  await saveConfigDocument(configPath, next, request.validate);
  const named = typeof removed.tokenFile === "string" ? removed.tokenFile : null;
  const tokenFile = named === null ? null : expandHome(named, request.homeDir ?? homedir());
  if (tokenFile !== null) await discardTokenFile(tokenFile);
  return {
    removed: alias,
    configPath,
    tokenFileRemoved: tokenFile,
    environmentsLeft: Object.keys(environmentsOf(next)).length,
    note: REVOKE_AT_T3_NOTE,
  };
}
