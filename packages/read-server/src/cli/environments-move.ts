import { configPathContext } from "@t3-connector/core/cli-support";
import { parseReadConfig, readConfigPath } from "@t3-connector/core/config";
import { moveEnvironmentInConfig, type TransportOption } from "@t3-connector/core/pairing";
import { findEnvironment, loadCliConfig } from "./config-access.js";
import { diagnoseEnvironments } from "./diagnose.js";
import { type CliIo, writeJson } from "./io.js";

/**
 * `t3-connector environments move <alias> (--url URL | --ssh HOST[:PORT])`: the same T3 machine at
 * a new address. Its entry keeps the token file and the projects; no pairing code is spent. Then
 * the moved environment is verified like `environments add` does (`diagnose`), so the answer says
 * whether the token still works there (`tokenWorks`); exit 1 when it does not.
 */
export async function moveEnvironmentCommand(
  io: CliIo,
  request: { alias: string; transport: TransportOption },
): Promise<number> {
  const configPath = readConfigPath(configPathContext(io));
  const moved = await moveEnvironmentInConfig({
    alias: request.alias,
    transport: request.transport,
    configPath,
    configName: "read config",
    validate: (document) => {
      parseReadConfig(document, { path: configPath, ...(io.homeDir ? { homeDir: io.homeDir } : {}) });
    },
    fetch: io.fetch,
  });
  const entry = findEnvironment(await loadCliConfig(io), request.alias);
  const [diagnosis] = await diagnoseEnvironments(io, [entry]);
  const tokenWorks = diagnosis?.ok === true;
  writeJson(io, { ...moved, tokenWorks, diagnosis });
  return tokenWorks ? 0 : 1;
}
