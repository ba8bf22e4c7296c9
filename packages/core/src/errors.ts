/**
 * The one error type of the product. Every failure that a caller may act on carries a stable,
 * typed `code`; the message is for humans and never contains a token, a token path, ssh output or
 * a stack trace.
 *
 * The codes, one table per domain: a new code goes in the table of the domain it belongs to
 * (ARCHITECTURE.md, "Where to add…"); `ERROR_CODES` is all of them.
 */
export const ERROR_CODES_BY_DOMAIN = {
  /** Configuration and local files. */
  configuration: [
    "config_not_found",
    "config_invalid",
    "config_legacy_key",
    "token_file_invalid",
    "state_dir_invalid",
    /** Another live process holds this state directory's lock (a second server on the same files). */
    "state_dir_in_use",
  ],
  /** Environments and transports. */
  environments: [
    "environment_required",
    /** The config lists no environment yet (a valid state): the message says how to add one. */
    "no_environments",
    "environment_unknown",
    "environment_mismatch",
    "environment_unavailable",
    "environment_exists",
    "port_in_use",
    "protocol_unsupported",
    "scope_mismatch",
    "tunnel_failed",
  ],
  /** Talking to T3. */
  t3: [
    "unauthorized",
    "insufficient_scope",
    "thread_not_found",
    "not_found",
    "invalid_request",
    "http_error",
    "invalid_response",
    /** An answer (HTTP body or WebSocket frame) larger than the connector reads; refused unread (ADR 0020). */
    "response_too_large",
    /** A route a newer protocol added answered like a server that does not have it (HTML, 503 text). */
    "route_absent",
    "timeout",
    "global_timeout",
    "unavailable",
    "connection_lost",
    "rpc_failure",
    "protocol_error",
    "too_many_in_flight",
    "cancelled",
    "pairing_failed",
    "scope_not_granted",
  ],
  /** Serving over HTTP. */
  http: [
    /** A non-loopback bind without a bearer token file: anyone reaching the port could read. */
    "auth_token_required",
    /** A bind address the server's protection does not allow (a plain-http OAuth issuer off loopback). */
    "bind_not_allowed",
  ],
  /**
   * The OAuth session profile of `serve --http` (packages/oauth); the codes OAuth itself names
   * (RFC 6749 §5.2, RFC 8707, RFC 6750) are answered under the same names on the wire.
   */
  oauth: [
    "invalid_grant",
    "invalid_client",
    /** A `resource` other than this server's `/mcp` (RFC 8707). */
    "invalid_target",
    "access_denied",
    "unsupported_grant_type",
    "unsupported_response_type",
    "invalid_redirect_uri",
    "invalid_client_metadata",
    /** A bearer token that is unknown, expired, for another resource, or whose session ended. */
    "invalid_token",
    "session_unknown",
    /** A client-id metadata document (CIMD) could not be fetched or is not valid. */
    "client_metadata_unavailable",
  ],
  /** Reads. */
  reads: [
    "invalid_input",
    "invalid_cursor",
    "coverage_changed",
    "out_of_scope",
    "ambiguous_thread",
    "incomplete_scope",
  ],
  /** Writes. */
  writes: [
    /** An OAuth session of `serve --http` without the `t3:write` scope called a write tool (ADR 0049). */
    "write_not_granted",
    /**
     * The write side of an OAuth session of `serve --http` ended (the session ended, or serve
     * dropped its writes to make room, ADR 0067): its leases ended and its requests withdrawn.
     */
    "write_session_ended",
    "gate_unavailable",
    /** The gate's answer lacks a field (or has one of another type) that the relay contract requires: versions differ. */
    "relay_answer_invalid",
    "lease_closed",
    "environment_not_in_lease",
    "scope_denied",
    /** The write would run an agent in a runtime mode above the lease's (or ops') ceiling; nothing was sent. */
    "runtime_mode_above_lease",
    "operation_conflict",
    /** The operationId is another client's write (ADR 0040): its receipt goes only to that client. */
    "operation_not_held",
    "reconciliation_required",
    /** A resend was asked where no lease (nor the operator on a stopped gate) may make it; nothing was sent. */
    "resend_not_allowed",
    "t3_refused",
    /** T3 refused: a subagent thread the provider spawned takes no messages (OrchestratorSubagentThreadReadOnlyError). */
    "subagent_thread_read_only",
    /** T3 refused: the thread would run above the mode its ceiling allows (OrchestratorThreadAboveModeLimitError). */
    "above_mode_limit",
    /**
     * The environment's T3 version lacks what was asked: a command type (nothing was applied) or,
     * for a read, an RPC (`details.missing` names it). One code for every "this T3 lacks it".
     */
    "action_unsupported",
    "journal_unavailable",
    "journal_transition_invalid",
    /** The journal is missing, truncated or altered files: the gate refuses to start until an operator acts. */
    "journal_damaged",
    /** The operationId may be in a range the journal lost (recorded by `journal recover --accept-loss`): never resent. */
    "operation_lost",
    "guard_refused",
    /**
     * A project's workspace folder is not under a root the environment's `projectRoots` allows (or
     * reaches outside one through a symlink, or no root is configured): nothing was sent.
     */
    "workspace_root_refused",
    /** The project still holds live or archived threads and the delete did not say `force`. */
    "project_not_empty",
  ],
  /** The gate's approval page, approval requests and passkeys (answered to the page as {error: code}). */
  approval: [
    /** Never seen (or not a request id at all). */
    "request_invalid",
    "request_expired",
    /** Already approved (or consumed by an approval attempt). */
    "request_used",
    "request_denied",
    /** A newer request from the same bridge replaced it, or the gate closed every lease and approval meanwhile. */
    "request_superseded",
    /** The OAuth session that asked for it ended (revoked, expired, theft detected): its holder withdrew it. */
    "request_withdrawn",
    /** The client named an environment, project, action or thread the live inventory does not list. */
    "proposal_invalid",
    "challenge_already_issued",
    "challenge_invalid",
    "selection_invalid",
    "enrollment_required",
    "lease_already_active",
    /** As many leases are open as the gate keeps at once (ADR 0028): end one on the page first. */
    "lease_limit_reached",
    /** One client is over its own share of a gate budget (pending requests, event streams); the details name the limit. */
    "client_budget_exceeded",
    "enrollment_code_required",
    "enrollment_code_invalid",
    "step_up_required",
    "step_up_invalid",
    "registration_unknown",
    "too_many_requests",
    /** The inbox from afar shows what waits only after a passkey assertion (ADR 0073). */
    "unlock_required",
    "credential_unknown",
    "assertion_invalid",
    "registration_invalid",
    /** credentials.json is not a private regular file, or could not be read or written. */
    "credential_store_invalid",
  ],
  /** The gate's HTTP checks, before any route runs (ADR 0013). */
  gateHttp: [
    "host_invalid",
    "origin_or_method_invalid",
    "body_invalid",
    "body_too_large",
    "rate_limited",
    /** More live `GET /api/events` streams than the gate keeps open. */
    "too_many_streams",
    /** A page route failed for a reason it does not name (the answer never carries a message or stack). */
    "verification_failed",
    "internal",
  ],
} as const;

export type ErrorDomain = keyof typeof ERROR_CODES_BY_DOMAIN;
export type ErrorCode = (typeof ERROR_CODES_BY_DOMAIN)[ErrorDomain][number];

/** Every code of every domain. */
export const ERROR_CODES: readonly ErrorCode[] = Object.freeze(Object.values(ERROR_CODES_BY_DOMAIN).flat());

const DOMAIN_OF = new Map<string, ErrorDomain>(
  Object.entries(ERROR_CODES_BY_DOMAIN).flatMap(([domain, codes]) =>
    codes.map((code): [string, ErrorDomain] => [code, domain as ErrorDomain]),
  ),
);

/** The domain whose table lists `code`. */
export function errorDomainOf(code: ErrorCode): ErrorDomain {
  return DOMAIN_OF.get(code) as ErrorDomain;
}

/** What T3 itself said, when the failure came from a T3 answer (HTTP body or RPC `Fail`). */
export interface T3ErrorDetail {
  /** `_tag` of the error body, e.g. `EnvironmentScopeRequiredError`. */
  tag?: string;
  /** T3's own `code`, e.g. `insufficient_scope`. */
  code?: string;
  /** T3's own `reason`, e.g. `thread_not_found`. */
  reason?: string;
  requiredScope?: string;
  traceId?: string;
}

export interface ConnectorErrorOptions {
  /** HTTP status, when the failure is an HTTP answer. */
  status?: number;
  t3?: T3ErrorDetail;
  /** Structured, non-secret details a caller may show or act on. */
  details?: Record<string, unknown>;
  cause?: unknown;
}

export class ConnectorError extends Error {
  override readonly name = "ConnectorError";
  readonly code: ErrorCode;
  readonly status: number | undefined;
  readonly t3: T3ErrorDetail | undefined;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, options: ConnectorErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.status = options.status;
    this.t3 = options.t3;
    this.details = options.details;
  }

  /** `code: message`, the stable form used in tool errors and CLI output. */
  override toString(): string {
    return `${this.code}: ${this.message}`;
  }
}

export function isConnectorError(value: unknown, code?: ErrorCode): value is ConnectorError {
  return value instanceof ConnectorError && (code === undefined || value.code === code);
}

/** Transport failures are the only ones a read may retry (once); writes never retry. */
export function isTransportFailure(error: unknown): boolean {
  return isConnectorError(error) && (error.code === "unavailable" || error.code === "connection_lost");
}
