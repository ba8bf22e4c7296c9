/**
 * The runtime ceiling for a holder with no lease (`t3-connector-ops --max-runtime-mode`, ADR 0036,
 * 0037): the lease verdict's rule, from the same catalogue declarations (`runEffect`,
 * `runtimeModeField`), over the same fresh reads of the threads the action drives. It runs after
 * connecting and before the preflight and the one send.
 */
import type { ConnectorError } from "@t3-connector/core";
import type { ConnectedEnvironment } from "@t3-connector/core/environments";
import {
  drivenThreadMode,
  getAction,
  type PreparedAction,
  RUNTIME_MODES,
  type RuntimeMode,
  requestedRuntimeMode,
  runtimeCeilingRefusal,
  threadModeCeilingRefusal,
} from "../actions/index.js";
import { readFreshThreads } from "./fresh-shell.js";

/** `runtime_mode_above_lease` worded for ops (nothing sent), or null when the write is within the ceiling. */
export async function operatorCeilingRefusal(
  environment: ConnectedEnvironment,
  prepared: PreparedAction,
  ceiling: RuntimeMode,
): Promise<ConnectorError | null> {
  const requested = requestedRuntimeMode(prepared.action, prepared.input);
  const refusal = runtimeCeilingRefusal(prepared.action, requested, ceiling, "ops");
  if (refusal !== null) return refusal;
  const entry = getAction(prepared.action);
  // Nothing runs above the highest mode: without a ceiling below it, ops reads nothing more.
  if (entry.runEffect === "runs-nothing" || ceiling === RUNTIME_MODES[RUNTIME_MODES.length - 1]) return null;
  const fresh = await readFreshThreads(environment, entry.drives(prepared.input));
  const driven = drivenThreadMode(prepared.action, prepared.input, fresh.found.values());
  return threadModeCeilingRefusal(prepared.action, driven, ceiling, "ops");
}
