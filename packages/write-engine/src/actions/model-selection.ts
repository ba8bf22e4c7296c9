/**
 * The `model_selection_offered` guard: a selection is sent only if the environment's fresh
 * `server.getConfig` offers it. The selection itself is never changed:
 * no option is added, removed or defaulted.
 */

import { ConnectorError } from "@t3-connector/core";
import { z } from "zod";
import type { ModelSelection } from "./fields.js";
import { providerNotReady } from "./provider-readiness.js";

/** Messages list at most this many offered values, then a count. */
const MAX_LISTED = 40;

// T3's answers are forward compatible: unknown fields are kept, undecodable entries are dropped.
const descriptorSchema = z.looseObject({
  id: z.string(),
  type: z.string(),
  options: z.array(z.looseObject({ id: z.string() })).optional(),
});
const modelSchema = z.looseObject({
  slug: z.string(),
  capabilities: z
    .looseObject({ optionDescriptors: z.array(z.unknown()).optional() })
    .nullable()
    .optional(),
});
const providerSchema = z.looseObject({ instanceId: z.string(), models: z.array(z.unknown()).optional() });

function decodeAll<T>(schema: z.ZodType<T>, values: readonly unknown[]): T[] {
  return values.flatMap((value) => {
    const parsed = schema.safeParse(value);
    return parsed.success ? [parsed.data] : [];
  });
}

function listed(values: readonly string[]): string {
  if (values.length === 0) return "none";
  const shown = values.slice(0, MAX_LISTED).join(", ");
  return values.length > MAX_LISTED ? `${shown} (+${values.length - MAX_LISTED} more)` : shown;
}

function refuse(reason: string, message: string, details: Record<string, unknown> = {}): ConnectorError {
  return new ConnectorError("guard_refused", message, { details: { reason, ...details } });
}

/**
 * Checks a selection against `config.providers` of a `server.getConfig` answer read for this
 * write: the instance is offered and ready, it lists the model, and (unless `options: false`, for
 * a thread's own selection chosen at its launch) it offers each option and value. Pass
 * `undefined` when the config could not be read. Returns the refusal, or null.
 */
export function checkModelSelection(
  selection: ModelSelection,
  config: unknown,
  check: { readonly options: boolean } = { options: true },
): ConnectorError | null {
  const providersRaw = (config as { providers?: unknown } | null | undefined)?.providers;
  if (!Array.isArray(providersRaw)) {
    return refuse(
      "model_capabilities_unavailable",
      "the environment's provider configuration could not be read",
    );
  }
  const providers = decodeAll(providerSchema, providersRaw);
  const provider = providers.find((item) => item.instanceId === selection.instanceId);
  if (provider === undefined) {
    const offered = providers.map((item) => item.instanceId);
    return refuse(
      "provider_instance_unavailable",
      `provider instance ${selection.instanceId} is not offered; offered: ${listed(offered)}`,
      { offered: offered.slice(0, MAX_LISTED) },
    );
  }
  const notReady = providerNotReady(provider);
  if (notReady !== null) return notReady;
  if (provider.models === undefined) {
    return refuse("provider_model_unavailable", `provider instance ${selection.instanceId} lists no models`);
  }
  const models = decodeAll(modelSchema, provider.models);
  const model = models.find((item) => item.slug === selection.model);
  if (model === undefined) {
    const offered = models.map((item) => item.slug);
    return refuse(
      "provider_model_unavailable",
      `model ${selection.model} is not offered by ${selection.instanceId}; offered: ${listed(offered)}`,
      { offered: offered.slice(0, MAX_LISTED) },
    );
  }
  const options = check.options ? (selection.options ?? []) : [];
  if (options.length === 0) return null;
  if (model.capabilities === null || model.capabilities === undefined) {
    return refuse("model_capabilities_unknown", `the options of model ${selection.model} are not published`);
  }
  const descriptors = decodeAll(descriptorSchema, model.capabilities.optionDescriptors ?? []);
  const seen = new Set<string>();
  for (const option of options) {
    if (seen.has(option.id)) return refuse("model_option_unsupported", `option ${option.id} is given twice`);
    seen.add(option.id);
    const descriptor = descriptors.find((item) => item.id === option.id);
    if (descriptor === undefined) {
      const offered = descriptors.map((item) => item.id);
      return refuse(
        "model_option_unsupported",
        `option ${option.id} is not offered by model ${selection.model}; offered: ${listed(offered)}`,
        { option: option.id, offered: offered.slice(0, MAX_LISTED) },
      );
    }
    const refusal = checkValue(descriptor, option.id, option.value);
    if (refusal !== null) return refusal;
  }
  return null;
}

function checkValue(
  descriptor: z.output<typeof descriptorSchema>,
  optionId: string,
  value: string | boolean,
): ConnectorError | null {
  if (descriptor.type === "boolean") {
    return typeof value === "boolean"
      ? null
      : refuse("model_option_value_unsupported", `option ${optionId} takes true or false`, {
          option: optionId,
        });
  }
  if (descriptor.type === "select") {
    const offered = (descriptor.options ?? []).map((item) => item.id);
    return typeof value === "string" && offered.includes(value)
      ? null
      : refuse(
          "model_option_value_unsupported",
          `value ${String(value)} is not offered for option ${optionId}; offered: ${listed(offered)}`,
          { option: optionId, offered: offered.slice(0, MAX_LISTED) },
        );
  }
  return refuse("model_capabilities_unknown", `option ${optionId} has a type the connector cannot check`, {
    option: optionId,
    type: descriptor.type,
  });
}
