/**
 * The refusal of an approval request when no environment could be inventoried, naming each one
 * and why: a person (or the model) must learn that T3 is too old, or the token refused, not only
 * that "nothing" answered. When every environment was left out for one reason, that reason is the
 * refusal's code (e.g. `protocol_unsupported` for servers before T3 0.0.46, ADR 0069).
 */
import { ConnectorError, type ErrorCode } from "@t3-connector/core";
import { FIRST_PROTOCOL_2_RELEASE } from "@t3-connector/core/environments";
import type { EnvironmentLeftOut } from "../contract.js";

const SAYS: Readonly<Record<string, string>> = {
  timeout: "did not answer in time",
  no_projects: "has no project with a usable folder",
  unauthorized: "refused the operate token; pair it again",
  scope_mismatch: "holds a token whose scopes are not exactly orchestration:read and orchestration:operate",
  environment_unavailable: "could not be reached",
};

/** Reasons that are error codes of their own when every environment shares them. */
const OWN_CODE: Readonly<Record<string, ErrorCode>> = {
  protocol_unsupported: "protocol_unsupported",
  unauthorized: "unauthorized",
  scope_mismatch: "scope_mismatch",
};

function said(left: EnvironmentLeftOut): string {
  if (left.reason === "protocol_unsupported") {
    return (
      `runs T3 ${left.serverVersion ?? "of an unknown version"}, which does not speak orchestration protocol 2; ` +
      `upgrade T3 to ${FIRST_PROTOCOL_2_RELEASE} or later`
    );
  }
  return SAYS[left.reason] ?? left.reason;
}

export function nothingInventoried(leftOut: readonly EnvironmentLeftOut[]): ConnectorError {
  const reasons = new Set(leftOut.map((left) => left.reason));
  const [only] = reasons;
  const code = (only !== undefined && reasons.size === 1 && OWN_CODE[only]) || "environment_unavailable";
  const each = leftOut.map((left) => `environment "${left.alias}" ${said(left)}`);
  const message =
    each.length === 0
      ? "no environment could be inventoried: none is configured"
      : `no environment could be inventoried: ${each.join("; ")}`;
  return new ConnectorError(code, message, { details: { leftOut: leftOut.map((left) => ({ ...left })) } });
}
