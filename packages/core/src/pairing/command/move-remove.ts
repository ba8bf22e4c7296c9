import { moveEnvironmentInConfig } from "../move-environment.js";
import { removeEnvironmentFromConfig } from "../remove-environment.js";
import {
  configPathOf,
  type EnvironmentsCommandContext,
  type EnvironmentsReport,
  findConfigured,
  homeOf,
  validatorOf,
} from "./command-context.js";
import { diagnoseEnvironments } from "./diagnose.js";
import type { MoveRequest, RemoveRequest } from "./requests.js";

/**
 * `environments move <alias> (--url URL | --ssh HOST[:PORT])`: the same T3 machine at a new
 * address. Its entry keeps the token file and every other key; no pairing code is spent; a server
 * that announces another environmentId is refused (`environment_mismatch`, the file untouched).
 * Then the moved environment is verified like `add` does, so the answer says whether the token
 * still works there (`tokenWorks`); exit 1 when it does not.
 */
export async function moveCommand(
  context: EnvironmentsCommandContext,
  request: MoveRequest,
): Promise<EnvironmentsReport> {
  const { kind, io } = context;
  const configPath = configPathOf(context);
  const moved = await moveEnvironmentInConfig({
    alias: request.alias,
    transport: request.transport,
    configPath,
    configName: kind.configName,
    validate: validatorOf(context, configPath),
    fetch: io.fetch,
    parseTransport: (option, entry) => kind.parseTransport(option, entry.insecureHttp === true),
  });
  const loaded = await kind.load(homeOf(io), configPath);
  const [diagnosis] = await diagnoseEnvironments(context, [findConfigured(loaded, request.alias)]);
  const tokenWorks = diagnosis?.ok === true;
  return { value: { ...moved, tokenWorks, diagnosis }, exitCode: tokenWorks ? 0 : 1 };
}

/**
 * `environments remove <alias>`: the entry leaves the file (and `default` when it named it), the
 * file is checked and written atomically, then its token file is deleted. The token stays valid at
 * T3 until revoked there, which the answer's note says.
 */
export async function removeCommand(
  context: EnvironmentsCommandContext,
  request: RemoveRequest,
): Promise<EnvironmentsReport> {
  const configPath = configPathOf(context);
  const removed = await removeEnvironmentFromConfig({
    alias: request.alias,
    configPath,
    configName: context.kind.configName,
    homeDir: context.io.homeDir,
    validate: validatorOf(context, configPath),
  });
  return { value: { ...removed }, exitCode: 0 };
}
