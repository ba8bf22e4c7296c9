import { createHash, randomBytes } from "node:crypto";

/** T3's tagged JSON error bodies (fixtures 06, 10a, 10b, 43-45). */

export function traceId(): string {
  return randomBytes(16).toString("hex");
}

export type AuthInvalidReason = "missing_credential" | "invalid_credential";

export function authInvalidBody(reason: AuthInvalidReason): Record<string, unknown> {
  return { _tag: "EnvironmentAuthInvalidError", code: "auth_invalid", reason, traceId: traceId() };
}

export function scopeRequiredBody(requiredScope: string): Record<string, unknown> {
  return {
    _tag: "EnvironmentScopeRequiredError",
    code: "insufficient_scope",
    requiredScope,
    traceId: traceId(),
  };
}

export function requestInvalidBody(reason: string): Record<string, unknown> {
  return { _tag: "EnvironmentRequestInvalidError", code: "invalid_request", reason, traceId: traceId() };
}

export function internalErrorBody(reason: string): Record<string, unknown> {
  return { _tag: "EnvironmentInternalError", code: "internal_error", reason, traceId: traceId() };
}

/** What a T3 server without a web build answers to any GET it has no route for (fixtures 47, 49). */
export const SPA_FALLBACK_TEXT = "No static directory configured and no dev URL set.";

/** A stand-in for the web app page a misrouted server (or a newer SPA fallback) serves. */
export const SPA_HTML_PAGE =
  '<!doctype html>\n<html lang="en"><head><meta charset="UTF-8" /><title>T3 Code</title></head>' +
  '<body><div id="root"></div><script type="module" src="/assets/index.js"></script></body></html>\n';

/** The `auth` descriptor of `/api/auth/session` and `server.getConfig` (fixtures 02-04, 62). */
export function authDescriptor(port: number, environmentId: string): Record<string, unknown> {
  const suffix = createHash("sha256").update(environmentId).digest("hex").slice(0, 12);
  return {
    policy: "loopback-browser",
    bootstrapMethods: ["one-time-token"],
    sessionMethods: ["browser-session-cookie", "bearer-access-token", "dpop-access-token"],
    sessionCookieName: `t3_session_${port}_${suffix}`,
  };
}
