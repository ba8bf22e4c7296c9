/**
 * @module The one HTTP error of the gate's page routes: a status and a stable code. Handlers
 * throw it; the app's single `onError` turns it into `{error: code}` (never a message or stack).
 */
export type GateHttpCode =
  | "host_invalid"
  | "origin_or_method_invalid"
  | "body_too_large"
  | "body_invalid"
  | "rate_limited"
  | "not_found"
  | "verification_failed"
  | (string & {});

export class GateHttpError extends Error {
  override readonly name = "GateHttpError";
  constructor(
    readonly status: 400 | 401 | 403 | 404 | 413 | 429 | 500,
    readonly code: GateHttpCode,
  ) {
    super(code);
  }
}
