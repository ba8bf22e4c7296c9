/**
 * Tests make a provider not ready the ways T3 0.0.31 reports it (fixture 62, the capture of a host
 * with no provider CLI): `not_installed` is the row of a missing CLI (`installed: false`,
 * `status: "error"`, the "is not installed or not on PATH." message); `disabled` the row of a
 * provider switched off in T3's settings (`enabled: false`, `status: "disabled"`). Models stay
 * listed, as T3 lists them either way. Applied to every `server.getConfig` and config stream.
 */

export type ProviderState = "ready" | "not_installed" | "disabled";

/** The CLI each sim instance's message names (fixture 62's words). */
const CLI_OF: Record<string, string> = {
  codex: "codex",
  claudeAgent: "claude",
  grok: "grok",
  opencode: "opencode",
};

/** A copy of `row` as T3 reports the instance in `state`; `ready` leaves it as the sim serves it. */
export function withProviderState(
  row: Record<string, unknown>,
  state: ProviderState,
): Record<string, unknown> {
  const instanceId = String(row.instanceId);
  const displayName = typeof row.displayName === "string" ? row.displayName : instanceId;
  switch (state) {
    case "ready":
      return row;
    case "not_installed":
      return {
        ...row,
        installed: false,
        version: null,
        status: "error",
        auth: { status: "unknown" },
        message: `${displayName} CLI (\`${CLI_OF[instanceId] ?? instanceId}\`) is not installed or not on PATH.`,
      };
    case "disabled":
      return {
        ...row,
        enabled: false,
        installed: false,
        version: null,
        status: "disabled",
        auth: { status: "unknown" },
        message: `${displayName} is disabled in T3 Code settings.`,
      };
  }
}

/** The providers of a config with the states a test set, by instance id. */
export function applyProviderStates(
  config: Record<string, unknown>,
  states: ReadonlyMap<string, ProviderState>,
): Record<string, unknown> {
  if (states.size === 0 || !Array.isArray(config.providers)) return config;
  const providers = (config.providers as Record<string, unknown>[]).map((row) => {
    const state = states.get(String(row.instanceId));
    return state === undefined ? row : withProviderState(row, state);
  });
  return { ...config, providers };
}
