/**
 * Command support as one write rule of the engine (ADR 0009, 0038). The gate's dispatcher and
 * `t3-connector-ops` call these two and nothing else for it: an action the environment's T3
 * version cannot decode is refused before anything is journaled or sent, and a refusal whose
 * decode defect lists the accepted types replaces what the cache assumed, so the next request
 * for that action is refused before the journal (and the page stops offering it).
 */
import { isConnectorError } from "@t3-connector/core";
import type { ConnectedEnvironment } from "@t3-connector/core/environments";
import type { ActionId } from "../actions/index.js";
import { actionUnsupportedError, type CommandSupport, supportsAction } from "./command-support.js";
import type { CommandSupportCache } from "./command-support-cache.js";

/** Throws `action_unsupported` (nothing recorded, nothing sent) when this server cannot run `action`. */
export async function refuseUnsupportedAction(
  cache: CommandSupportCache,
  connection: ConnectedEnvironment,
  action: ActionId,
): Promise<void> {
  const support = await cache.of(connection);
  if (!supportsAction(support, action)) throw actionUnsupportedError(support, connection.alias, action);
}

/**
 * Learns the command types a refusal listed (an older server's decode defect, as `protocol_error`
 * or as the send's `action_unsupported`); answers what it learned, or undefined when the error
 * listed nothing.
 */
export function learnFromRefusal(
  cache: CommandSupportCache,
  connection: ConnectedEnvironment,
  error: unknown,
): CommandSupport | undefined {
  if (!isConnectorError(error, "action_unsupported") && !isConnectorError(error, "protocol_error")) {
    return undefined;
  }
  const listed = error.details?.acceptedCommandTypes;
  const types = Array.isArray(listed)
    ? listed.filter((type): type is string => typeof type === "string")
    : [];
  if (types.length === 0) return undefined;
  const learned: CommandSupport = {
    environmentId: connection.environmentId,
    serverVersion: connection.version,
    acceptedTypes: new Set(types),
    source: "server_list",
  };
  cache.learn(learned);
  return learned;
}
