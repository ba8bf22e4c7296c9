import type { EnvironmentContext } from "./environment-context.js";
import { authDescriptor } from "./http-bodies.js";

/**
 * Transport-owned parts of config values: the `auth` descriptor (it names this port's cookie)
 * and the `wrongEnvironmentId` fault. Applied to `server.getConfig`, the `subscribeServerConfig`
 * snapshot and the `subscribeServerLifecycle` welcome, the places that carry the descriptor.
 */
export function patchConfigValue(ctx: EnvironmentContext, tag: string, value: unknown): unknown {
  if (tag === "server.getConfig") return patchConfig(ctx, value);
  if (!isRecord(value)) return value;
  if (tag === "subscribeServerConfig" && value.type === "snapshot") {
    return { ...value, config: patchConfig(ctx, value.config) };
  }
  if (tag === "subscribeServerLifecycle" && value.type === "welcome" && isRecord(value.payload)) {
    return {
      ...value,
      payload: { ...value.payload, environment: patchEnvironment(ctx, value.payload.environment) },
    };
  }
  return value;
}

function patchConfig(ctx: EnvironmentContext, config: unknown): unknown {
  if (!isRecord(config)) return config;
  const patched: Record<string, unknown> = {
    ...config,
    environment: patchEnvironment(ctx, config.environment),
  };
  if ("auth" in config) patched.auth = authDescriptor(ctx.port(), ctx.model.environmentId);
  return patched;
}

function patchEnvironment(ctx: EnvironmentContext, environment: unknown): unknown {
  const wrongId = ctx.faults.current.wrongEnvironmentId;
  if (wrongId === undefined || !isRecord(environment)) return environment;
  return { ...environment, environmentId: wrongId };
}

export function isConfigTag(tag: string): boolean {
  return tag === "server.getConfig" || tag === "subscribeServerConfig" || tag === "subscribeServerLifecycle";
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
