import { z } from "zod";
import { EnvironmentDescriptorSchema, ServerAuthDescriptorSchema } from "./environment.js";
import { forwardCompatibleArray, openEnum } from "./lenient.js";

/** A model option descriptor (`select` or `boolean`); other types are kept, untyped. */
export const OptionDescriptorSchema = z.looseObject({
  id: z.string(),
  label: z.string(),
  description: z.string().optional(),
  type: openEnum(["select", "boolean"]),
  options: z
    .array(
      z.looseObject({
        id: z.string(),
        label: z.string(),
        description: z.string().optional(),
        isDefault: z.boolean().optional(),
      }),
    )
    .optional(),
  currentValue: z.union([z.string(), z.boolean()]).optional(),
});
export type OptionDescriptor = z.output<typeof OptionDescriptorSchema>;

export const ProviderModelSchema = z.looseObject({
  slug: z.string(),
  name: z.string(),
  shortName: z.string().optional(),
  isCustom: z.boolean().optional(),
  isDefault: z.boolean().optional(),
  isLegacy: z.boolean().optional(),
  capabilities: z
    .looseObject({ optionDescriptors: forwardCompatibleArray(OptionDescriptorSchema).optional() })
    .nullish(),
});
export type ProviderModel = z.output<typeof ProviderModelSchema>;

/** `ServerProvider`. */
export const ServerProviderSchema = z.looseObject({
  instanceId: z.string(),
  driver: z.string(),
  displayName: z.string().optional(),
  enabled: z.boolean(),
  installed: z.boolean(),
  version: z.string().nullish(),
  status: openEnum(["ready", "warning", "error", "disabled"]),
  auth: z.looseObject({ status: z.string() }).optional(),
  checkedAt: z.string().optional(),
  message: z.string().optional(),
  availability: openEnum(["available", "unavailable"]).optional(),
  models: forwardCompatibleArray(ProviderModelSchema).optional().default([]),
});
export type ServerProvider = z.output<typeof ServerProviderSchema>;

/** `server.getConfig` success. Provider lists drop entries they cannot decode, like T3 does. */
export const ServerConfigSchema = z.looseObject({
  environment: EnvironmentDescriptorSchema,
  auth: ServerAuthDescriptorSchema.optional(),
  cwd: z.string().optional(),
  providers: forwardCompatibleArray(ServerProviderSchema).optional().default([]),
  settings: z.unknown().optional(),
  shellResumeCompletionMarker: z.boolean().optional(),
  threadResumeCompletionMarker: z.boolean().optional(),
  threadSnapshotPagination: z.boolean().optional(),
});
export type ServerConfig = z.output<typeof ServerConfigSchema>;
