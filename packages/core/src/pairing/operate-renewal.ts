import { homedir } from "node:os";
import { resolve } from "node:path";
import {
  expandHome,
  OPS_ENVIRONMENTS_ENV,
  opsConfigPath,
  type PathContext,
  writeConfigPath,
} from "../config/index.js";
import { ConnectorError } from "../errors.js";
import { environmentsOf, loadConfigDocument } from "./add-environment.js";
import type { OperateConfigName } from "./operate-config-names.js";
import type { OperateConfigPlan } from "./operate-configs.js";

/**
 * `pair --also`: the operate side of re-pairing a machine that is already configured. The
 * environment must already be in write.json / ops.json (found by environmentId, whatever its alias
 * there); its token files get the new operate token and no config file is rewritten. Everything is
 * checked before a code is spent.
 */

export interface PlanOperateRenewalOptions {
  names: readonly OperateConfigName[];
  environmentId: string;
  /** Token files of the read config: an operate token never goes into one of them. */
  readTokenFiles: readonly string[];
  context: PathContext;
}

export async function planOperateRenewal(options: PlanOperateRenewalOptions): Promise<OperateConfigPlan[]> {
  const plans: OperateConfigPlan[] = [];
  for (const name of new Set(options.names)) plans.push(await renewalPlan(name, options));
  const readFiles = new Set(options.readTokenFiles.map((path) => resolve(path)));
  for (const plan of plans) {
    if (readFiles.has(resolve(plan.tokenFile))) {
      throw new ConnectorError(
        "token_file_invalid",
        `${plan.path} names ${plan.tokenFile} as its token file, which is also a read token file; give the ` +
          "operate token its own file. No pairing code was used",
      );
    }
  }
  return plans;
}

async function renewalPlan(
  name: OperateConfigName,
  options: PlanOperateRenewalOptions,
): Promise<OperateConfigPlan> {
  const path = name === "write" ? writeConfigPath(options.context) : opsConfigPath(options.context);
  const inline = (options.context.env ?? process.env)[OPS_ENVIRONMENTS_ENV];
  if (name === "ops" && inline !== undefined && inline.trim() !== "") {
    throw new ConnectorError(
      "invalid_input",
      `${OPS_ENVIRONMENTS_ENV} is set, so ops reads its environments from it and not from ${path}; ` +
        "unset it, or leave ops out of --also. No pairing code was used",
    );
  }
  const what = name === "write" ? "write config" : "ops config";
  const document = await loadConfigDocument(path, what, () => {
    throw new ConnectorError("config_not_found", `${what} not found at ${path}; no pairing code was used`, {
      details: { path },
    });
  });
  const found = Object.entries(environmentsOf(document)).find(
    ([, entry]) => entry?.environmentId === options.environmentId,
  );
  const tokenFile = found?.[1]?.tokenFile;
  if (found === undefined || typeof tokenFile !== "string") {
    throw new ConnectorError(
      "environment_unknown",
      `${path} has no environment with environmentId ${options.environmentId}; add it there with ` +
        "`environments add`. No pairing code was used",
      { details: { path } },
    );
  }
  return {
    name,
    path,
    alias: found[0],
    tokenFile: expandHome(tokenFile, options.context.homeDir ?? homedir()),
  };
}
