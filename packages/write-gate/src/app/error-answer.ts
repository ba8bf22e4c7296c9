/**
 * @module What the gate answers when a route throws: the status of each error code and the body,
 * which names the code (and a budget's limit) and nothing else. Hono's `onError` and the relay's
 * door (`relay-door.ts`) both answer with it, so a refusal reads the same whichever served it.
 */
import { ConnectorError, type ErrorCode } from "@t3-connector/core";

/** The HTTP status of each code a route answers with; any other code answers 400. */
const STATUS_BY_CODE: Readonly<Partial<Record<ErrorCode, 401 | 403 | 404 | 409 | 410 | 413 | 429 | 500>>> = {
  origin_or_method_invalid: 403,
  body_too_large: 413,
  rate_limited: 429,
  too_many_streams: 429,
  client_budget_exceeded: 429,
  lease_limit_reached: 409,
  not_found: 404,
  thread_not_found: 404,
  environment_unknown: 404,
  credential_unknown: 404,
  request_invalid: 404,
  request_expired: 410,
  request_used: 410,
  request_denied: 410,
  request_superseded: 410,
  request_withdrawn: 410,
  too_many_requests: 429,
  unlock_required: 401,
  credential_store_invalid: 500,
};

export interface ErrorAnswer {
  readonly status: 400 | 401 | 403 | 404 | 409 | 410 | 413 | 429 | 500;
  readonly body: { readonly error: string; readonly limit?: number };
}

/** The answer to `error`; what the person running the gate must see goes to `log` (never the page). */
export function errorAnswer(error: unknown, log: (line: string) => void): ErrorAnswer {
  if (error instanceof ConnectorError) {
    if (error.code === "credential_store_invalid") log(`gate passkey store failed: ${error.message}`);
    // A budget refusal names its limit; no other detail reaches the page.
    const limit = error.code === "client_budget_exceeded" ? error.details?.limit : undefined;
    const named = typeof limit === "number" ? { limit } : {};
    return { status: STATUS_BY_CODE[error.code] ?? 400, body: { error: error.code, ...named } };
  }
  log(`gate page route failed: ${error instanceof Error ? error.name : "error"}`);
  return { status: 400, body: { error: "verification_failed" } };
}
