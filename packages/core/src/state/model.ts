import type { Maybe, ModelSelectionInput } from "./types.js";

/** The model of a thread or run: `{model, instanceId, effort}`. */
export interface ModelSummary {
  model: string | null;
  instanceId: string | null;
  effort: string | null;
}

function optionValue(options: ModelSelectionInput["options"], id: string): unknown {
  if (!options) return undefined;
  if (Array.isArray(options)) {
    return (options as ReadonlyArray<{ id?: unknown; value?: unknown }>).find((option) => option?.id === id)
      ?.value;
  }
  // Legacy object-shaped options: `{effort: "max", fastMode: true}`.
  return (options as Readonly<Record<string, unknown>>)[id];
}

/** `reasoningEffort` if the selection has it, else `effort`, else null; only string values count. */
export function effortOf(selection: Maybe<ModelSelectionInput>): string | null {
  if (!selection) return null;
  for (const id of ["reasoningEffort", "effort"]) {
    const value = optionValue(selection.options, id);
    if (typeof value === "string" && value.length > 0) return value;
  }
  return null;
}

export function modelSummary(
  selection: Maybe<ModelSelectionInput>,
  fallbackInstanceId?: Maybe<string>,
): ModelSummary {
  return {
    model: selection?.model ?? null,
    instanceId: selection?.instanceId ?? selection?.provider ?? fallbackInstanceId ?? null,
    effort: effortOf(selection),
  };
}
