/**
 * `t3-connector-ops environments move <alias> (--url URL | --ssh HOST[:PORT])`: the same T3 machine
 * (same environmentId) at a new address. The entry keeps its token file, its extra names
 * (`aliases`) and every other key; ops.json is validated as the config loader would.
 */
import { homedir } from "node:os";
import type { Transport } from "@t3-connector/core/config";
import {
  type MovedEnvironment,
  moveEnvironmentInConfig,
  parseTransportOption,
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
    parseTransport: transportFor,
  });
}

/**
 * The new address by the shared rules, except a URL for an entry added with `--insecure-http`:
 * that allowance stays with the machine, and ops' own schema checks the URL when the file is saved.
 */
function transportFor(option: TransportOption, entry: Record<string, unknown>): Transport {
  if ("url" in option && entry.insecureHttp === true) return { kind: "url", url: option.url };
  return parseTransportOption(option);
}
