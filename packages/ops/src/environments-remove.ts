/**
 * `t3-connector-ops environments remove <alias>`: the entry leaves ops.json (validated as the
 * config loader would, an empty config included) and its token file is deleted. The token stays
 * valid at T3 until revoked there, which the answer says.
 */
import { homedir } from "node:os";
import { expandHome } from "@t3-connector/core/config";
import { type RemovedEnvironment, removeEnvironmentFromConfig } from "@t3-connector/core/pairing";
import { parseOpsConfig } from "./config.js";

export type RemoveEnvironmentResult = RemovedEnvironment;

export async function removeEnvironment(
  alias: string,
  context: { configPath: string; homeDir?: string },
): Promise<RemoveEnvironmentResult> {
  const { configPath } = context;
  const home = context.homeDir ?? homedir();
  const result = await removeEnvironmentFromConfig({
    alias,
    configPath,
    configName: "ops config",
    homeDir: home,
    validate: (candidate) => {
      parseOpsConfig(candidate, { path: configPath, homeDir: home });
    },
  });
  // ops names the file it deleted with `~` expanded.
  const removed = result.tokenFileRemoved;
  return { ...result, tokenFileRemoved: removed === null ? null : expandHome(removed, home) };
}
