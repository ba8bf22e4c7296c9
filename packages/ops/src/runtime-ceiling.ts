/**
 * The operator's runtime ceiling (ADR 0022, 0037): ops holds no lease, so the highest runtime mode
 * a write may run an agent in comes from `--max-runtime-mode`, else the config's `maxRuntimeMode`,
 * else full-access (the operator's own token, as before). The rules are the gate's, from the same
 * catalogue declarations: the mode an input asks for (`runtimeModeField`) is checked before
 * connecting, and the current mode of every thread the action drives (`runEffect`) by the engine's
 * `operatorCeilingRefusal` after connecting, before the preflight and the one send.
 */
import type { ConnectedEnvironment } from "@t3-connector/core/environments";
import {
  type PreparedAction,
  type RuntimeMode,
  requestedRuntimeMode,
  runtimeCeilingRefusal,
} from "@t3-connector/write-engine/actions";
import { operatorCeilingRefusal } from "@t3-connector/write-engine/engine";
import type { OpsConfig } from "./config.js";

export const OPS_DEFAULT_RUNTIME_CEILING: RuntimeMode = "full-access";

export function opsCeiling(config: OpsConfig): RuntimeMode {
  return config.maxRuntimeMode ?? OPS_DEFAULT_RUNTIME_CEILING;
}

/** Throws `runtime_mode_above_lease` (nothing connected to, nothing sent) when above the ceiling. */
export function refuseAboveOpsCeiling(config: OpsConfig, prepared: PreparedAction): void {
  const requested = requestedRuntimeMode(prepared.action, prepared.input);
  const refusal = runtimeCeilingRefusal(prepared.action, requested, opsCeiling(config), "ops");
  if (refusal !== null) throw refusal;
}

/**
 * Throws `runtime_mode_above_lease` (nothing sent) when the action would make a thread's agent run
 * in its current mode above the ceiling, or change what such an agent does: a message, a released
 * prepared run or an edited queued message on a thread left in full-access under
 * `--max-runtime-mode approval-required`.
 */
export async function refuseThreadModeAboveOpsCeiling(
  config: OpsConfig,
  connection: ConnectedEnvironment,
  prepared: PreparedAction,
): Promise<void> {
  const refusal = await operatorCeilingRefusal(connection, prepared, opsCeiling(config));
  if (refusal !== null) throw refusal;
}
