import { ConnectorError } from "@t3-connector/core";
import type { EnvironmentRef } from "@t3-connector/core/fanout";
import type { ServerProvider } from "@t3-connector/core/t3";
import * as z from "zod";
import { defineReadTool, READ_ONLY_ANNOTATIONS } from "../read-tool.js";
import { readScope } from "../scope/read-scope.js";

/**
 * Provider instances as T3's Settings > Providers shows them: `server.getConfig`'s `providers`,
 * in T3 order, none filtered out and none added. Each is projected to the fields that choosing an
 * instance needs; account, paths, quota, slash commands and update details stay behind.
 */

const optionDescriptorSchema = z.strictObject({
  id: z.string(),
  label: z.string(),
  description: z.string().optional(),
  type: z.string(),
  options: z
    .array(
      z.strictObject({
        id: z.string(),
        label: z.string(),
        description: z.string().optional(),
        isDefault: z.boolean().optional(),
      }),
    )
    .optional(),
  currentValue: z.union([z.string(), z.boolean()]).optional(),
  promptInjectedValues: z.array(z.unknown()).optional(),
});

const modelSchema = z.strictObject({
  slug: z.string(),
  name: z.string(),
  shortName: z.string().optional(),
  subProvider: z.string().optional(),
  isCustom: z.boolean().optional(),
  isDefault: z.boolean().optional(),
  isLegacy: z.boolean().optional(),
  capabilities: z
    .object({ optionDescriptors: z.array(optionDescriptorSchema).optional() })
    .nullable()
    .optional(),
});

const providerSchema = z.strictObject({
  instanceId: z.string(),
  driver: z.string(),
  displayName: z.string().optional(),
  enabled: z.boolean(),
  installed: z.boolean(),
  status: z.string(),
  availability: z.string().optional(),
  unavailableReason: z.string().optional(),
  message: z.string().optional(),
  version: z.string().nullable().optional(),
  checkedAt: z.string().optional(),
  continuation: z.strictObject({ groupKey: z.string() }).optional(),
  supportedRuntimeModes: z.array(z.string()).optional(),
  requiresNewThreadForModelChange: z.boolean().optional(),
  auth: z.strictObject({ status: z.string() }).optional(),
  models: z.array(modelSchema).optional(),
  environment: z.strictObject({ alias: z.string(), environmentId: z.string(), name: z.string().nullable() }),
});
type ProjectedProvider = z.input<typeof providerSchema>;

type Guard = (value: unknown) => boolean;
const isString: Guard = (value) => typeof value === "string";
const isBoolean: Guard = (value) => typeof value === "boolean";
const isNullableString: Guard = (value) => value === null || typeof value === "string";
const isStringArray: Guard = (value) => Array.isArray(value) && value.every(isString);
const isArray: Guard = (value) => Array.isArray(value);

/** Copies `keys` of `source` that T3 sent with the documented type; a field T3 omits stays absent. */
function pick(source: Record<string, unknown>, keys: Record<string, Guard>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, guard] of Object.entries(keys)) {
    if (guard(source[key])) out[key] = source[key];
  }
  return out;
}

const PROVIDER_FIELDS: Record<string, Guard> = {
  displayName: isString,
  availability: isString,
  unavailableReason: isString,
  message: isString,
  version: isNullableString,
  checkedAt: isString,
  supportedRuntimeModes: isStringArray,
  requiresNewThreadForModelChange: isBoolean,
};

const MODEL_FIELDS: Record<string, Guard> = {
  shortName: isString,
  subProvider: isString,
  isCustom: isBoolean,
  isDefault: isBoolean,
  isLegacy: isBoolean,
};

const DESCRIPTOR_FIELDS: Record<string, Guard> = {
  description: isString,
  currentValue: (value) => isString(value) || isBoolean(value),
  promptInjectedValues: isArray,
};

const CHOICE_FIELDS: Record<string, Guard> = { description: isString, isDefault: isBoolean };

type Descriptor = NonNullable<
  NonNullable<ServerProvider["models"][number]["capabilities"]>["optionDescriptors"]
>[number];

function projectDescriptor(descriptor: Descriptor): z.input<typeof optionDescriptorSchema> {
  return {
    id: descriptor.id,
    label: descriptor.label,
    type: descriptor.type,
    ...pick(descriptor, DESCRIPTOR_FIELDS),
    ...(descriptor.options
      ? {
          options: descriptor.options.map((choice) => ({
            id: choice.id,
            label: choice.label,
            ...pick(choice, CHOICE_FIELDS),
          })),
        }
      : {}),
  };
}

function projectModel(model: ServerProvider["models"][number]): z.input<typeof modelSchema> {
  const projected: z.input<typeof modelSchema> = {
    slug: model.slug,
    name: model.name,
    ...pick(model, MODEL_FIELDS),
  };
  if (model.capabilities === null) projected.capabilities = null;
  else if (model.capabilities) {
    const descriptors = model.capabilities.optionDescriptors;
    projected.capabilities = descriptors ? { optionDescriptors: descriptors.map(projectDescriptor) } : {};
  }
  return projected;
}

function projectProvider(
  provider: ServerProvider,
  environment: EnvironmentRef,
  includeModels: boolean,
): ProjectedProvider {
  const raw = provider as Record<string, unknown>;
  const continuation = raw.continuation as { groupKey?: unknown } | undefined;
  return {
    instanceId: provider.instanceId,
    driver: provider.driver,
    enabled: provider.enabled,
    installed: provider.installed,
    status: provider.status,
    ...pick(raw, PROVIDER_FIELDS),
    ...(continuation && isString(continuation.groupKey)
      ? { continuation: { groupKey: continuation.groupKey as string } }
      : {}),
    ...(provider.auth ? { auth: { status: provider.auth.status } } : {}),
    ...(includeModels ? { models: provider.models.map(projectModel) } : {}),
    environment: {
      alias: environment.alias,
      environmentId: environment.environmentId,
      name: environment.name,
    },
  };
}

export const t3ProvidersTool = defineReadTool({
  name: "t3_providers",
  title: "List provider instances",
  description:
    "Lists the provider instances of each environment (or only environment) as T3's Settings > Providers shows them, from server.getConfig: nothing filtered or added. " +
    "IDs are per environment: call it in the environment you will write to. Pass includeModels: true, ideally with instanceId, to get the models and their options for a modelSelection.",
  inputSchema: z.strictObject({
    environment: z
      .string()
      .min(1)
      .optional()
      .describe("Alias or environmentId; omit to list every environment"),
    instanceId: z
      .string()
      .min(1)
      .optional()
      .describe("Exact instanceId (case, underscores and hyphens count)"),
    includeModels: z.boolean().optional().describe("Add each instance's models (tens of kB); default false"),
  }),
  outputSchema: z.strictObject({
    environment: z.strictObject({ alias: z.string(), environmentId: z.string() }).optional(),
    source: z.literal("server.getConfig"),
    total: z.number().int(),
    complete: z.boolean(),
    queriedEnvironments: z.array(
      z.strictObject({
        alias: z.string(),
        environmentId: z.string(),
        name: z.string().nullable(),
        found: z.number().int(),
      }),
    ),
    environmentFailures: z.array(
      z.strictObject({ alias: z.string(), environmentId: z.string(), code: z.string(), reason: z.string() }),
    ),
    providers: z.array(providerSchema),
  }),
  annotations: READ_ONLY_ANNOTATIONS,
  async handler(context, input, extra) {
    const includeModels = input.includeModels === true;
    const { results, envelope } = await readScope(
      context,
      input.environment,
      async ({ connection }, signal) => {
        const rpc = await connection.rpc();
        const config = await rpc.getConfig({ signal });
        if (config.environment.environmentId !== connection.environmentId) {
          throw new ConnectorError(
            "environment_mismatch",
            `server.getConfig answered as another environment`,
            {
              details: { expected: connection.environmentId, actual: config.environment.environmentId },
            },
          );
        }
        // instanceId is a literal filter: no case folding or slug normalisation.
        return config.providers.filter(
          (provider) => input.instanceId === undefined || provider.instanceId === input.instanceId,
        );
      },
      { signal: extra.signal },
    );
    const providers = results.flatMap(({ environment, value }) =>
      value.map((provider) => projectProvider(provider, environment, includeModels)),
    );
    return {
      ...(envelope.environment ? { environment: envelope.environment } : {}),
      source: "server.getConfig" as const,
      total: providers.length,
      complete: envelope.complete,
      queriedEnvironments: envelope.queriedEnvironments,
      environmentFailures: envelope.environmentFailures,
      providers,
    };
  },
});
