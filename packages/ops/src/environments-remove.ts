/**
 * `t3-connector-ops environments remove <alias>`: the entry leaves ops.json (validated as the
 * config loader would, an empty config included) and its token file is deleted. The token stays
 * valid at T3 until revoked there, which the answer says.
 */
import { homedir } from "node:os";
import { ConnectorError } from "@t3-connector/core";
import { expandHome } from "@t3-connector/core/config";
import {
  discardTokenFile,
  environmentsOf,
  loadConfigDocument,
  REVOKE_AT_T3_NOTE,
  saveConfigDocument,
  withoutEnvironment,
} from "@t3-connector/core/pairing";
import { parseOpsConfig } from "./config.js";

export interface RemoveEnvironmentResult {
  removed: string;
  configPath: string;
  tokenFileRemoved: string | null;
  environmentsLeft: number;
  note: string;
}

export async function removeEnvironment(
  alias: string,
  context: { configPath: string; homeDir?: string },
): Promise<RemoveEnvironmentResult> {
  const { configPath } = context;
  const home = context.homeDir ?? homedir();
  const document = await loadConfigDocument(configPath, "ops config", () => {
    throw new ConnectorError("config_not_found", `ops config not found at ${configPath}`, {
      details: { path: configPath },
    });
  });
  const { document: next, removed } = withoutEnvironment(document, alias, configPath);
  await saveConfigDocument(configPath, next, (candidate) => {
    parseOpsConfig(candidate, { path: configPath, homeDir: home });
  });
  const tokenFile = typeof removed.tokenFile === "string" ? expandHome(removed.tokenFile, home) : null;
  if (tokenFile !== null) await discardTokenFile(tokenFile);
  return {
    removed: alias,
    configPath,
    tokenFileRemoved: tokenFile,
    environmentsLeft: Object.keys(environmentsOf(next)).length,
    note: REVOKE_AT_T3_NOTE,
  };
}
