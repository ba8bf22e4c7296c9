import { type EnvironmentContext, effectiveScopes, resolveBearer } from "./environment-context.js";
import { type HttpAnswer, jsonAnswer, NO_STORE } from "./http-answer.js";
import {
  authDescriptor,
  authInvalidBody,
  internalErrorBody,
  requestInvalidBody,
  scopeRequiredBody,
} from "./http-bodies.js";
import type { ParsedRequest } from "./parsed-request.js";
import { isKnownScope, SCOPE_ACCESS_WRITE, STANDARD_CLIENT_SCOPES } from "./scopes.js";

const TOKEN_EXCHANGE_GRANT = "urn:ietf:params:oauth:grant-type:token-exchange";
const BOOTSTRAP_TOKEN_TYPE = "urn:t3:params:oauth:token-type:environment-bootstrap";
const ACCESS_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:access_token";

/** `GET /api/auth/session`: 200 in every auth case, `authenticated:false` when not (fixtures 02-04, 07). */
export function handleSession(ctx: EnvironmentContext, request: ParsedRequest): HttpAnswer {
  const status = ctx.faults.current.httpStatus;
  if (status !== undefined) return jsonAnswer(status, internalErrorBody("internal_error"));
  const auth = authDescriptor(ctx.port(), ctx.model.environmentId);
  const credential = resolveBearer(ctx, request.headers.authorization);
  if (!credential.ok) return jsonAnswer(200, { authenticated: false, auth });
  return jsonAnswer(200, {
    authenticated: true,
    auth,
    scopes: effectiveScopes(ctx, credential.session),
    sessionMethod: credential.session.method,
    expiresAt: new Date(credential.session.expiresAt).toISOString(),
  });
}

/**
 * `POST /oauth/token` (form-urlencoded pairing-code exchange, fixtures 05/06/06b). Every answer,
 * errors included, carries `cache-control: no-store`. A 400 does not consume the code.
 */
export function handleOauthToken(ctx: EnvironmentContext, request: ParsedRequest): HttpAnswer {
  const form = new URLSearchParams(request.body);
  const fail = (status: number, body: Record<string, unknown>) => jsonAnswer(status, body, NO_STORE);
  if (
    form.get("grant_type") !== TOKEN_EXCHANGE_GRANT ||
    form.get("subject_token_type") !== BOOTSTRAP_TOKEN_TYPE ||
    (form.has("requested_token_type") && form.get("requested_token_type") !== ACCESS_TOKEN_TYPE)
  ) {
    return fail(400, requestInvalidBody("invalid_request"));
  }
  const requested = form.has("scope")
    ? (form.get("scope") ?? "").split(/\s+/).filter((s) => s !== "")
    : undefined;
  if (requested?.some((scope) => !isKnownScope(scope))) return fail(400, requestInvalidBody("invalid_scope"));
  const code = form.get("subject_token") ?? "";
  const grant = ctx.auth.pairing(code);
  if (!grant) return fail(401, authInvalidBody("invalid_credential"));
  if (requested?.some((scope) => !grant.scopes.includes(scope))) {
    return fail(400, requestInvalidBody("scope_not_granted"));
  }
  ctx.auth.consumePairing(code);
  const exact =
    requested && requested.length > 0 ? grant.scopes.filter((s) => requested.includes(s)) : grant.scopes;
  // The 0.0.46 age may grant more than an explicit `scope` asked for (age-0046.ts).
  const extra = requested && requested.length > 0 ? (ctx.model.extraGrantedScopes?.() ?? []) : [];
  const scopes = [...exact, ...extra.filter((scope) => !exact.includes(scope))];
  const token = ctx.auth.issueToken({ scopes });
  const session = ctx.auth.session(token);
  // Read the clock after minting: read before, a millisecond tick in between made 2592000.
  const answeredAt = ctx.clock.now();
  const expiresInMs = (session?.expiresAt ?? answeredAt) - answeredAt;
  return jsonAnswer(
    200,
    {
      access_token: token,
      issued_token_type: ACCESS_TOKEN_TYPE,
      token_type: "Bearer",
      // T3 floors the remaining lifetime after the token was minted, so 30 days shows as 2591999.
      expires_in: Math.max(0, Math.floor((expiresInMs - 1) / 1000)),
      scope: scopes.join(" "),
    },
    NO_STORE,
  );
}

/** `POST /api/auth/websocket-ticket`: any live token may mint one (12b); the 401 has no no-store (12c). */
export function handleWebSocketTicket(ctx: EnvironmentContext, request: ParsedRequest): HttpAnswer {
  const credential = resolveBearer(ctx, request.headers.authorization);
  if (!credential.ok) return jsonAnswer(401, authInvalidBody(credential.reason));
  const { ticket, expiresAt } = ctx.auth.issueTicket(credential.session);
  return jsonAnswer(200, { ticket, expiresAt: new Date(expiresAt).toISOString() }, NO_STORE);
}

/**
 * `POST /api/auth/pairing-token` `{label?, scopes?}`: needs `access:write` and every scope it
 * delegates (pairing may narrow, never widen).
 */
export function handlePairingToken(ctx: EnvironmentContext, request: ParsedRequest): HttpAnswer {
  const credential = resolveBearer(ctx, request.headers.authorization);
  if (!credential.ok) return jsonAnswer(401, authInvalidBody(credential.reason));
  const held = effectiveScopes(ctx, credential.session);
  if (!held.includes(SCOPE_ACCESS_WRITE)) return jsonAnswer(403, scopeRequiredBody(SCOPE_ACCESS_WRITE));
  let input: { label?: unknown; scopes?: unknown } = {};
  if (request.body.trim() !== "") {
    try {
      const parsed: unknown = JSON.parse(request.body);
      if (parsed && typeof parsed === "object") input = parsed as typeof input;
    } catch {
      return jsonAnswer(400, requestInvalidBody("invalid_request"));
    }
  }
  const scopes = Array.isArray(input.scopes) ? input.scopes.map(String) : [...STANDARD_CLIENT_SCOPES];
  if (scopes.some((scope) => !isKnownScope(scope)))
    return jsonAnswer(400, requestInvalidBody("invalid_scope"));
  const missing = scopes.find((scope) => !held.includes(scope));
  if (missing !== undefined) return jsonAnswer(403, scopeRequiredBody(missing));
  const label = typeof input.label === "string" ? input.label : undefined;
  const grant = ctx.auth.createPairingCode({ scopes, ...(label === undefined ? {} : { label }) });
  return jsonAnswer(
    200,
    {
      id: grant.id,
      credential: grant.credential,
      ...(grant.label === undefined ? {} : { label: grant.label }),
      expiresAt: new Date(grant.expiresAt).toISOString(),
    },
    NO_STORE,
  );
}
