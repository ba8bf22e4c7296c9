/**
 * Learning a server's accepted command types without applying anything: `dispatchCommand` with a
 * command type no server has. The payload cannot decode, so no handler runs and no receipt is
 * kept (the commandId is fresh and never reused); an older T3 answers with its decode defect,
 * which lists every type it accepts (fixture 33b).
 */
import { randomUUID } from "node:crypto";
import { isConnectorError } from "@t3-connector/core";
import type { ConnectedEnvironment } from "@t3-connector/core/environments";
import type { CommandSupport } from "./command-support.js";

/** A command type outside every T3 catalogue: it can only fail to decode. */
export const PROBE_COMMAND_TYPE = "t3-connector.capability-probe";

export const PROBE_TIMEOUT_MS = 5_000;

/** The support a decode defect proves, or undefined when `error` is not one. */
export function supportFromDefect(
  environmentId: string,
  serverVersion: string | null,
  error: unknown,
): CommandSupport | undefined {
  if (!isConnectorError(error, "protocol_error")) return undefined;
  // The RPC client reads the list from the whole defect before clipping it (rpc/exit.ts).
  const listed = error.details?.acceptedCommandTypes;
  const types = Array.isArray(listed)
    ? listed.filter((type): type is string => typeof type === "string")
    : [];
  if (types.length === 0) return undefined;
  return { environmentId, serverVersion, acceptedTypes: new Set(types), source: "server_list" };
}

export async function probeCommandSupport(
  connection: ConnectedEnvironment,
  options: { timeoutMs?: number } = {},
): Promise<CommandSupport> {
  const rpc = await connection.rpc();
  const everything: CommandSupport = {
    environmentId: connection.environmentId,
    serverVersion: connection.version,
    acceptedTypes: "all",
    source: "protocol",
  };
  try {
    await rpc.dispatchCommand(
      { type: PROBE_COMMAND_TYPE, commandId: randomUUID() },
      { timeoutMs: options.timeoutMs ?? PROBE_TIMEOUT_MS },
    );
  } catch (error) {
    const listed = supportFromDefect(connection.environmentId, connection.version, error);
    if (listed !== undefined) return listed;
    // Anything else (a typed refusal, a defect in another form) says nothing about the list:
    // every action stays offered, and a refusal that lists the types teaches it later.
    if (isConnectorError(error, "protocol_error") || isConnectorError(error, "rpc_failure"))
      return everything;
    throw error;
  }
  // A server that accepted the probe would be strange; it lists nothing, so assume everything.
  return everything;
}
