/**
 * A relay refusal on the wire: `{error, message, t3?, details?}`. The gate builds it from a
 * ConnectorError and the bridge rebuilds the ConnectorError from it; both keep exactly the detail
 * keys listed here, so what the model can act on is decided in one place.
 */

export interface RelayErrorBody {
  /** A stable lower-case snake code (`t3_refused`, `lease_closed`, …). */
  readonly error: string;
  readonly message: string;
  /** T3's own answer when T3 refused the write (`tag` is T3's error tag). */
  readonly t3?: { readonly tag?: string; readonly code?: string };
  readonly details?: Readonly<Record<string, unknown>>;
}

/** What a relay error code must look like; anything else is replaced before it crosses. */
export const STABLE_RELAY_CODE = /^[a-z][a-z0-9_]*$/;

/**
 * Detail keys that cross the relay and reach the client: states, ids, reasons and names, never
 * free text from T3 or from a file.
 */
export const RELAY_DETAIL_KEYS = [
  "state",
  "sent",
  "recorded",
  "replayed",
  "reconciled",
  "operationId",
  /** The journal key of an uncertain write, which `t3_reconcile` accepts. */
  "key",
  "reason",
  "stage",
  /** The code and message the journal recorded for an uncertain write's last attempt. */
  "lastError",
  /** environment_unknown: the configured aliases, so the client can pick one. */
  "aliases",
  "commandType",
  "acceptedCommandTypes",
  /** proposal_invalid: the names the live inventory does not list, and the valid ones. */
  "unknown",
  "valid",
  /** client_budget_exceeded, lease_limit_reached: which budget, and its limit. */
  "budget",
  "limit",
  /** environment_unavailable, protocol_unsupported: each environment left out, its reason and T3 version. */
  "leftOut",
  /** project_not_empty: the project and the threads counted fresh, live and archived. */
  "projectId",
  "threadCount",
] as const;

/** The listed detail keys of `details`, in the list's order; nothing else. */
export function relayDetailsOf(
  details: Readonly<Record<string, unknown>> | undefined,
): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  for (const key of RELAY_DETAIL_KEYS) {
    const value = details?.[key];
    if (value !== undefined) kept[key] = value;
  }
  return kept;
}
