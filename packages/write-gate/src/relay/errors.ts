import { isConnectorError } from "@t3-connector/core";
import {
  type RelayErrorBody,
  relayDetailsOf,
  STABLE_RELAY_CODE,
} from "@t3-connector/write-engine/relay-contract";

/**
 * Maps any failure to a relay error body. A ConnectorError keeps its code (environment_required,
 * environment_unknown, environment_not_in_lease, lease_closed, scope_denied, thread_not_found,
 * operation_conflict, reconciliation_required, t3_refused with T3's tag, …); anything else is
 * `internal` with no message of its own, so an unexpected exception never leaks through the relay.
 */
export function relayErrorOf(error: unknown): RelayErrorBody {
  if (!isConnectorError(error)) {
    // The human side's own typed errors (e.g. too_many_requests) carry a stable `code` too.
    const code = typedCodeOf(error);
    if (code !== null) return { error: code, message: (error as Error).message };
    return { error: "internal", message: "the gate failed unexpectedly" };
  }
  const details = relayDetailsOf(error.details);
  const body: { -readonly [K in keyof RelayErrorBody]: RelayErrorBody[K] } = {
    error: STABLE_RELAY_CODE.test(error.code) ? error.code : "relay_rejected",
    message: error.message,
  };
  if (error.t3 !== undefined) {
    body.t3 = {
      ...(error.t3.tag === undefined ? {} : { tag: error.t3.tag }),
      ...(error.t3.code === undefined ? {} : { code: error.t3.code }),
    };
  }
  if (Object.keys(details).length > 0) body.details = details;
  return body;
}

/** The stable `code` of a non-ConnectorError typed error, or null. */
export function typedCodeOf(error: unknown): string | null {
  if (!(error instanceof Error)) return null;
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" && STABLE_RELAY_CODE.test(code) ? code : null;
}

/** The code to record in the audit log for a failure. */
export function auditCodeOf(error: unknown): string {
  if (!isConnectorError(error)) return typedCodeOf(error) ?? "internal";
  if (error.code === "t3_refused" && error.t3?.tag !== undefined) return `t3_refused/${error.t3.tag}`;
  return error.code;
}
