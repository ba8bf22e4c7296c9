/**
 * The operator's runtime ceiling (ADR 0022): ops holds no lease, so the highest runtime mode a
 * write may run an agent in comes from `--max-runtime-mode`, else the config's `maxRuntimeMode`,
 * else full-access (the operator's own token, as before). The rules are the gate's, read from the
 * same catalogue declarations: the mode an input asks for (`runtimeModeField`), and the current
 * mode of the threads an action makes run (`runsInThreadMode`, ADR 0036).
 */
import type { ShellSnapshot } from "@t3-connector/core/t3";
import {
  drivenThreadMode,
  isRuntimeMode,
  type PreparedAction,
  type RuntimeMode,
  requestedRuntimeMode,
  runtimeCeilingRefusal,
  type ThreadModeView,
  threadModeCeilingRefusal,
} from "@t3-connector/write-engine/actions";
import type { OpsConfig } from "./config.js";
import { liveThreads } from "./preflight.js";

export const OPS_DEFAULT_RUNTIME_CEILING: RuntimeMode = "full-access";

function opsCeiling(config: OpsConfig): RuntimeMode {
  return config.maxRuntimeMode ?? OPS_DEFAULT_RUNTIME_CEILING;
}

/** Throws `runtime_mode_above_lease` (nothing connected to, nothing sent) when above the ceiling. */
export function refuseAboveOpsCeiling(config: OpsConfig, prepared: PreparedAction): void {
  const requested = requestedRuntimeMode(prepared.action, prepared.input);
  const refusal = runtimeCeilingRefusal(prepared.action, requested, opsCeiling(config), "ops");
  if (refusal !== null) throw refusal;
}

/** The named threads' current modes as the fresh shell shows them (null when it does not say). */
function threadModes(shell: ShellSnapshot, threadIds: readonly string[]): ThreadModeView[] {
  const rows = liveThreads(shell);
  return threadIds.flatMap((id) => {
    const mode = rows.get(id)?.runtimeMode;
    return rows.has(id) ? [{ id, runtimeMode: isRuntimeMode(mode) ? mode : null }] : [];
  });
}

/**
 * Throws `runtime_mode_above_lease` (nothing sent) when the action would make a named thread's
 * agent run in its current mode above the ceiling: a message, a resumed queue or a retried
 * preparation on a thread left in full-access under `--max-runtime-mode approval-required`.
 */
export function refuseThreadModeAboveOpsCeiling(
  config: OpsConfig,
  action: string,
  shell: ShellSnapshot,
  threadIds: readonly string[],
): void {
  const driven = drivenThreadMode(action, threadModes(shell, threadIds));
  const refusal = threadModeCeilingRefusal(action, driven, opsCeiling(config), "ops");
  if (refusal !== null) throw refusal;
}
