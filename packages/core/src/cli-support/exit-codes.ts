/**
 * The exit codes of every t3-connector CLI (docs/cli.md, ADR 0030): one table, so a script that
 * wraps `t3-connector`, `t3-connector-write` and `t3-connector-ops` reads one meaning per number.
 * The numbers follow BSD sysexits where one fits (64 usage, 69 unavailable, 75 temporary, 78
 * config). `wait` adds 2 (needs a human), 3 (failed) and 4 (timeout); a command whose outcome is
 * a verdict (`reconcile` with a write still uncertain, `journal verify` on a damaged journal)
 * answers 1. Every error maps by its code to one of the rest.
 */
import { isConnectorError } from "../errors.js";

export const EXIT_CODES = {
  ok: 0,
  failure: 1,
  usage: 64,
  ambiguous: 65,
  notFound: 66,
  refused: 67,
  unavailable: 69,
  uncertain: 75,
  config: 78,
} as const;

const BY_CODE: Readonly<Record<string, number>> = {
  invalid_input: EXIT_CODES.usage,
  environment_required: EXIT_CODES.usage,
  no_environments: EXIT_CODES.config,
  ambiguous_thread: EXIT_CODES.ambiguous,
  thread_not_found: EXIT_CODES.notFound,
  not_found: EXIT_CODES.notFound,
  environment_unknown: EXIT_CODES.notFound,
  guard_refused: EXIT_CODES.refused,
  t3_refused: EXIT_CODES.refused,
  scope_denied: EXIT_CODES.refused,
  runtime_mode_above_lease: EXIT_CODES.refused,
  resend_not_allowed: EXIT_CODES.refused,
  operation_not_held: EXIT_CODES.refused,
  insufficient_scope: EXIT_CODES.refused,
  scope_not_granted: EXIT_CODES.refused,
  action_unsupported: EXIT_CODES.refused,
  pairing_failed: EXIT_CODES.refused,
  unavailable: EXIT_CODES.unavailable,
  environment_unavailable: EXIT_CODES.unavailable,
  timeout: EXIT_CODES.unavailable,
  tunnel_failed: EXIT_CODES.unavailable,
  http_error: EXIT_CODES.unavailable,
  unauthorized: EXIT_CODES.unavailable,
  protocol_unsupported: EXIT_CODES.unavailable,
  too_many_in_flight: EXIT_CODES.unavailable,
  port_in_use: EXIT_CODES.unavailable,
  connection_lost: EXIT_CODES.uncertain,
  config_not_found: EXIT_CODES.config,
  config_invalid: EXIT_CODES.config,
  config_legacy_key: EXIT_CODES.config,
  token_file_invalid: EXIT_CODES.config,
  state_dir_invalid: EXIT_CODES.config,
  scope_mismatch: EXIT_CODES.config,
  environment_mismatch: EXIT_CODES.config,
  environment_exists: EXIT_CODES.config,
  auth_token_required: EXIT_CODES.config,
};

/** The exit code of a failure: by its ConnectorError code, else 1 (unexpected). */
export function exitCodeOf(error: unknown): number {
  return isConnectorError(error) ? (BY_CODE[error.code] ?? EXIT_CODES.failure) : EXIT_CODES.failure;
}
