/**
 * Whether T3 says a provider instance can take a run now, from its `ServerProvider` row of a fresh
 * `server.getConfig` (docs/t3-protocol-notes.md): `enabled`, `installed`, `status` (`ready`,
 * `warning`, `error`, `disabled`) and `availability` (absent means available). Only `ready` passes:
 * T3 folds its own install and sign-in checks into that word, and a `warning` names a problem the
 * person has not looked at. The capture of a host with no provider CLI (fixture 62) reads
 * `installed: false, status: "error"` with a message saying so; a provider switched off in T3's
 * settings reads `enabled: false, status: "disabled"`.
 */
import { ConnectorError } from "@t3-connector/core";

export interface ProviderRow {
  readonly instanceId: string;
  readonly enabled?: unknown;
  readonly installed?: unknown;
  readonly status?: unknown;
  readonly availability?: unknown;
  readonly message?: unknown;
}

/** `guard_refused` (`provider_not_ready`) naming what T3 reported, or null when it is ready. */
export function providerNotReady(provider: ProviderRow): ConnectorError | null {
  const ready =
    provider.status === "ready" &&
    provider.enabled !== false &&
    provider.installed !== false &&
    provider.availability !== "unavailable";
  if (ready) return null;
  const status = typeof provider.status === "string" ? provider.status : "unknown";
  // T3's own words, clipped: they reach the client, and a hostile T3 could make them long.
  const said =
    typeof provider.message === "string" && provider.message !== ""
      ? `: ${provider.message.slice(0, 200)}`
      : "";
  return new ConnectorError(
    "guard_refused",
    `provider instance ${provider.instanceId} is not ready on this environment (T3 reports ${status})${said}; ` +
      "choose another environment or provider, or have the person set it up in T3",
    {
      details: {
        reason: "provider_not_ready",
        instanceId: provider.instanceId,
        status,
        enabled: provider.enabled === true,
        installed: provider.installed === true,
      },
    },
  );
}
