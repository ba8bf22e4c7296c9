/**
 * `t3-connector-ops environments move <alias> (--url URL | --ssh HOST[:PORT])`: the same T3 machine
 * (same environmentId) at a new address. The entry keeps its token file, its extra names
 * (`aliases`) and every other key; ops.json is validated as the config loader would.
 */
import { homedir } from "node:os";
import {
  type MovedEnvironment,
  moveEnvironmentInConfig,
  type TransportOption,
} from "@t3-connector/core/pairing";
import { parseOpsConfig } from "./config.js";

export async function moveEnvironment(
  request: { alias: string; transport: TransportOption },
  context: { configPath: string; homeDir?: string; fetch?: typeof fetch },
): Promise<MovedEnvironment> {
  const { configPath } = context;
  const home = context.homeDir ?? homedir();
  return moveEnvironmentInConfig({
    ...request,
    configPath,
    configName: "ops config",
    validate: (candidate) => {
      parseOpsConfig(candidate, { path: configPath, homeDir: home });
    },
    fetch: context.fetch,
  });
}
