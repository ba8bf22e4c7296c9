import { dirname, join } from "node:path";
import { configPathContext, terminalPrompt } from "@t3-connector/core/cli-support";
import { type EnvironmentConfig, parseWriteConfig, writeConfigPath } from "@t3-connector/core/config";
import {
  checkNewAlias,
  defaultTokenFile,
  describeTransport,
  discardTokenFile,
  environmentsOf,
  loadConfigDocument,
  moveEnvironmentInConfig,
  NEW_WRITE_CONFIG_PORT,
  parseTransportOption,
  probeEnvironmentId,
  readPairingCode,
  refuseExisting,
  removeEnvironmentFromConfig,
  saveConfigDocument,
  type TransportOption,
  transportConfigKeys,
  withBaseUrl,
} from "@t3-connector/core/pairing";
import { type CliIo, writeJson } from "./cli-io.js";
import { diagnoseWriteEnvironments } from "./diagnose.js";
import { pairWriteEnvironment, refuseReadTokenPath } from "./pair.js";

export { NEW_WRITE_CONFIG_PORT };

/** The config loader's check; a config that names no environment (yet, or any more) is left as is. */
function validator(io: CliIo, path: string) {
  return (document: unknown) => {
    if (Object.keys(environmentsOf(document as Record<string, unknown>)).length === 0) return;
    parseWriteConfig(document, { path, ...(io.homeDir ? { homeDir: io.homeDir } : {}) });
  };
}

/**
 * `t3-connector-write environments add <alias> (--url URL | --ssh HOST[:PORT])`: the write side of
 * the read CLI's command. The token is exactly read + operate, in its own file
 * (`tokens/<alias>.operate.token` beside write.json); there is no project list (the passkey holder
 * chooses per lease). A write.json that does not exist is created with the gate on port 7433 and its
 * state in `state/` beside it.
 */
export async function addWriteEnvironmentCommand(
  io: CliIo,
  request: { alias: string; transport: TransportOption },
): Promise<number> {
  checkNewAlias(request.alias);
  const transport = parseTransportOption(request.transport);
  const path = writeConfigPath(configPathContext(io));
  const document = await loadConfigDocument(path, "write config", () => ({
    port: NEW_WRITE_CONFIG_PORT,
    stateDir: join(dirname(path), "state"),
    environments: {},
  }));
  validator(io, path)(document);
  refuseExisting(document, request.alias, undefined, path);
  const fetcher = io.fetch ?? globalThis.fetch;
  const { environmentId } = await withBaseUrl(transport, (baseUrl) =>
    probeEnvironmentId(baseUrl, describeTransport(transport), fetcher),
  );
  refuseExisting(document, request.alias, environmentId, path);
  const tokenFile = defaultTokenFile(path, request.alias, "operate");
  await refuseReadTokenPath(io, tokenFile);
  const entry: EnvironmentConfig = { alias: request.alias, environmentId, transport, tokenFile };
  const prompt = terminalPrompt(io);
  let paired: Awaited<ReturnType<typeof pairWriteEnvironment>>;
  try {
    paired = await pairWriteEnvironment(io, entry, await readPairingCode(io, prompt));
  } finally {
    prompt?.close();
  }
  try {
    const next = {
      ...document,
      environments: {
        ...environmentsOf(document),
        [request.alias]: { environmentId, ...transportConfigKeys(transport), tokenFile },
      },
    };
    await saveConfigDocument(path, next, validator(io, path));
  } catch (error) {
    await discardTokenFile(tokenFile);
    throw error;
  }
  const [diagnosis] = await diagnoseWriteEnvironments(io, [entry], false);
  const ok = diagnosis?.ok === true;
  // The same keys as every CLI's `environments add` (docs/cli.md): alias, configPath, tokenFile.
  writeJson(io, { alias: request.alias, configPath: path, tokenFile, scopes: paired.scopes, ok, diagnosis });
  return ok ? 0 : 1;
}

/** `t3-connector-write environments remove <alias>`: out of write.json, operate token file deleted. */
export async function removeWriteEnvironmentCommand(io: CliIo, alias: string): Promise<number> {
  const configPath = writeConfigPath(configPathContext(io));
  const validate = validator(io, configPath);
  const request = { alias, configPath, configName: "write config", homeDir: io.homeDir, validate };
  writeJson(io, await removeEnvironmentFromConfig(request));
  return 0;
}

/**
 * `t3-connector-write environments move <alias> (--url URL | --ssh HOST[:PORT])`: the same T3
 * machine (same environmentId) at a new address; the operate token file is kept, no code is spent.
 */
export async function moveWriteEnvironmentCommand(
  io: CliIo,
  request: { alias: string; transport: TransportOption },
): Promise<number> {
  const configPath = writeConfigPath(configPathContext(io));
  const validate = validator(io, configPath);
  const { alias, transport } = request;
  const move = { alias, transport, configPath, configName: "write config", validate, fetch: io.fetch };
  writeJson(io, await moveEnvironmentInConfig(move));
  return 0;
}
