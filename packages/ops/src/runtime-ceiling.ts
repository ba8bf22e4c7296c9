/**
 * The operator's runtime ceiling (ADR 0022): ops holds no lease, so the highest runtime mode a
 * write may run an agent in comes from `--max-runtime-mode`, else the config's `maxRuntimeMode`,
 * else full-access (the operator's own token, as before). The rule is the gate's, read from the
 * same catalogue declaration (`runtimeModeField`).
 */
import {
  type PreparedAction,
  type RuntimeMode,
  requestedRuntimeMode,
  runtimeCeilingRefusal,
} from "@t3-connector/write-engine/actions";
import type { OpsConfig } from "./config.js";

export const OPS_DEFAULT_RUNTIME_CEILING: RuntimeMode = "full-access";

/** Throws `runtime_mode_above_lease` (nothing connected to, nothing sent) when above the ceiling. */
export function refuseAboveOpsCeiling(config: OpsConfig, prepared: PreparedAction): void {
  const ceiling = config.maxRuntimeMode ?? OPS_DEFAULT_RUNTIME_CEILING;
  const requested = requestedRuntimeMode(prepared.action, prepared.input);
  const refusal = runtimeCeilingRefusal(prepared.action, requested, ceiling, "ops");
  if (refusal !== null) throw refusal;
}
