/**
 * The guards judged against a fresh `server.getConfig`: a launch's chosen selection
 * (`model_selection_offered`, options included) and a message's thread's own provider
 * (`thread_provider_ready`, instance and model only). The gate's preflight, `t3_preflight` and ops
 * all ask this module which selection to check, then `checkModelSelection`, so none of them can
 * judge a provider differently.
 */
import type { ConnectorError } from "@t3-connector/core";
import type { ModelSelection } from "./fields.js";
import { type Guard, valueAtPath } from "./guards.js";
import { checkModelSelection } from "./model-selection.js";

/** A thread's selection as T3 reports it (current `instanceId`, legacy `provider`). */
export interface ThreadSelection {
  readonly instanceId?: string | undefined;
  readonly provider?: string | undefined;
  readonly providerInstanceId?: string | null | undefined;
  readonly model?: string | undefined;
}

export interface ConfigGuardCheck {
  readonly selection: ModelSelection;
  readonly options: boolean;
}

/**
 * What one guard checks against the config, or undefined when it reads no config or has nothing
 * to check (no selection in the input; a thread whose selection T3 does not report).
 */
export function configGuardCheck(
  guard: Guard,
  input: unknown,
  threadSelection: (threadId: string) => ThreadSelection | null | undefined,
): ConfigGuardCheck | undefined {
  if (guard.kind === "model_selection_offered") {
    const selection = valueAtPath(input, guard.path);
    return selection === undefined ? undefined : { selection: selection as ModelSelection, options: true };
  }
  if (guard.kind !== "thread_provider_ready") return undefined;
  const threadId = valueAtPath(input, [guard.threadField]);
  if (typeof threadId !== "string") return undefined;
  const selection = threadSelection(threadId);
  const instanceId =
    selection?.instanceId ?? selection?.provider ?? selection?.providerInstanceId ?? undefined;
  if (instanceId === undefined || instanceId === null || selection?.model === undefined) return undefined;
  return { selection: { instanceId, model: selection.model }, options: false };
}

/** Every config guard of an entry, against one config read (`undefined`: it could not be read). */
export async function checkConfigGuards(
  guards: readonly Guard[],
  input: unknown,
  threadSelection: (threadId: string) => ThreadSelection | null | undefined,
  readConfig: () => Promise<unknown>,
): Promise<ConnectorError | null> {
  let config: { value: unknown } | undefined;
  for (const guard of guards) {
    const check = configGuardCheck(guard, input, threadSelection);
    if (check === undefined) continue;
    config ??= { value: await readConfig() };
    const refusal = checkModelSelection(check.selection, config.value, { options: check.options });
    if (refusal !== null) return refusal;
  }
  return null;
}
