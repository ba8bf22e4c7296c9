/**
 * @module The machine endpoints: discovery documents, `/token` (code + PKCE S256, rotating
 * refresh), `/register` (DCR on the redirect allowlist) and `/revoke` (RFC 7009). Bounded bodies
 * and a rate budget per endpoint; answers are `no-store` (the HTTP app sets it on everything).
 */
import { type Clock, ConnectorError } from "@t3-connector/core";
import { RequestBudget } from "@t3-connector/core/http-edge";
import type { Context, Hono } from "hono";
import type { OAuthSettings } from "../settings/index.js";
import type { SessionBook } from "../state/session-book.js";
import { pkceMatches } from "../tokens/secrets.js";
import type { ClientDirectory } from "./client-directory.js";
import { oauthErrorResponse, readForm, readJson } from "./http-helpers.js";
import {
  AUTHORIZATION_SERVER_PATH,
  authorizationServerMetadata,
  OPENID_CONFIGURATION_PATH,
  PROTECTED_RESOURCE_PATH,
  protectedResourceMetadata,
} from "./metadata.js";
import type { AuthorizationCodes } from "./pending.js";
import { FailureBudget, RATE_LIMITS } from "./rate-budget.js";

export interface TokenRouteParts {
  readonly settings: OAuthSettings;
  readonly clock: Clock;
  readonly clients: ClientDirectory;
  readonly codes: AuthorizationCodes;
  readonly sessions: SessionBook;
  readonly log: (line: string) => void;
  /** Which client a request counts against in the request budgets (oauth-profile.ts). */
  readonly budgetKey: (c: Context) => string;
}

/** claude.ai has been seen appending these to the MCP URL instead of reading the metadata. */
const TOKEN_PATHS = ["/token", "/mcp/token"];
const REGISTER_PATHS = ["/register", "/mcp/register"];

export function mountTokenRoutes(app: Hono, parts: TokenRouteParts): void {
  const { settings } = parts;
  const resourceMetadata = protectedResourceMetadata(settings);
  app.get(`${PROTECTED_RESOURCE_PATH}/mcp`, (c) => c.json(resourceMetadata));
  app.get(PROTECTED_RESOURCE_PATH, (c) => c.json(resourceMetadata));
  const serverMetadata = authorizationServerMetadata(settings);
  app.get(AUTHORIZATION_SERVER_PATH, (c) => c.json(serverMetadata));
  app.get(OPENID_CONFIGURATION_PATH, (c) => c.json(serverMetadata));

  // Failures only, per address and client: a stranger's wrong tokens never spend a real client's.
  const tokenBudget = new FailureBudget({ clock: parts.clock, limit: RATE_LIMITS.token });
  const budgetKey = (c: Context, params?: URLSearchParams) =>
    `${parts.budgetKey(c)} ${params?.get("client_id") ?? ""}`;
  app.on("POST", TOKEN_PATHS, async (c) => {
    try {
      const params = await readForm(c);
      return await tokenBudget.run(budgetKey(c, params), () => tokenGrant(c, params, parts));
    } catch (error) {
      return oauthErrorResponse(c, error);
    }
  });
  mountRegister(app, parts);
  app.post("/revoke", async (c) => {
    try {
      const params = await readForm(c);
      return await tokenBudget.run(budgetKey(c, params), async () => {
        await parts.clients.authenticate(params);
        const token = params.get("token");
        if (token === null) throw new ConnectorError("invalid_request", "token is missing");
        // RFC 7009 §2.2: an unknown token is answered 200 as well.
        await parts.sessions.revokeByToken(token);
        return c.body(null, 200);
      });
    } catch (error) {
      return oauthErrorResponse(c, error);
    }
  });
}

async function tokenGrant(c: Context, params: URLSearchParams, parts: TokenRouteParts): Promise<Response> {
  const { settings, sessions } = parts;
  const client = await parts.clients.authenticate(params);
  const resource = params.get("resource");
  if (resource !== null && resource !== settings.resource) {
    throw new ConnectorError("invalid_target", `resource must be ${settings.resource}`);
  }
  const grantType = params.get("grant_type");
  if (grantType === "authorization_code") return await exchangeCode(c, params, client.clientId, parts);
  if (grantType === "refresh_token") {
    const refreshToken = params.get("refresh_token");
    if (refreshToken === null) throw new ConnectorError("invalid_request", "refresh_token is missing");
    return tokenAnswer(c, await sessions.refresh(refreshToken, client.clientId));
  }
  throw new ConnectorError("unsupported_grant_type", "authorization_code or refresh_token");
}

/** DCR. Only a new registration spends the budget: a client registering again is free. */
function mountRegister(app: Hono, parts: TokenRouteParts): void {
  const registerBudget = new RequestBudget({ clock: parts.clock, limit: RATE_LIMITS.register });
  app.on("POST", REGISTER_PATHS, async (c) => {
    if (!parts.settings.dynamicRegistration) return c.json({ error: "not_found" }, 404);
    try {
      const { client, issuedAt, reused } = await parts.clients.registered.register(await readJson(c), () =>
        registerBudget.charge(parts.budgetKey(c)),
      );
      // The name is the client's own text: quoted as JSON, so it cannot forge a log line.
      parts.log(
        `oauth: client ${JSON.stringify(client.clientName)} ${reused ? "registered again (same registration kept)" : "registered"}`,
      );
      return c.json(
        {
          client_id: client.clientId,
          client_id_issued_at: Math.floor(issuedAt / 1000),
          client_name: client.clientName,
          redirect_uris: client.redirectUris,
          token_endpoint_auth_method: "none",
          grant_types: ["authorization_code", "refresh_token"],
          response_types: ["code"],
        },
        201,
      );
    } catch (error) {
      return oauthErrorResponse(c, error);
    }
  });
}

async function exchangeCode(
  c: Context,
  params: URLSearchParams,
  clientId: string,
  parts: TokenRouteParts,
): Promise<Response> {
  const code = params.get("code");
  if (code === null) throw new ConnectorError("invalid_request", "code is missing");
  const redemption = parts.codes.redeem(code);
  if (redemption.kind === "reused") {
    // Someone else holds this code: whatever it started is no longer trusted.
    if (redemption.sessionId !== undefined) await parts.sessions.end(redemption.sessionId, "code_reused");
    throw new ConnectorError("invalid_grant", "the code was already used");
  }
  if (redemption.kind === "unknown") throw new ConnectorError("invalid_grant", "unknown or expired code");
  const { grant } = redemption;
  await parts.sessions.syncRevocations();
  if (parts.sessions.revokedSince(grant.issuedAt))
    throw new ConnectorError("invalid_grant", "the code was revoked");
  if (grant.clientId !== clientId)
    throw new ConnectorError("invalid_grant", "the code was issued to another client");
  if (params.get("redirect_uri") !== grant.redirectUri) {
    throw new ConnectorError("invalid_grant", "redirect_uri differs from the authorization request's");
  }
  const verifier = params.get("code_verifier");
  if (verifier === null || !pkceMatches(verifier, grant.codeChallenge)) {
    throw new ConnectorError("invalid_grant", "code_verifier does not match the code_challenge");
  }
  const { session, tokens } = await parts.sessions.create({
    clientId: grant.clientId,
    clientName: grant.clientName,
    scope: grant.scope,
    resource: grant.resource,
    credentialId: grant.credentialId,
  });
  if (!redemption.bind(session.id)) {
    // The code was presented again while this exchange ran: whoever else holds it, this session
    // is not to be trusted either.
    await parts.sessions.end(session.id, "code_reused");
    throw new ConnectorError("invalid_grant", "the code was already used");
  }
  return tokenAnswer(c, tokens);
}

function tokenAnswer(
  c: Context,
  tokens: { accessToken: string; refreshToken: string; expiresIn: number; scope: readonly string[] },
): Response {
  c.header("Pragma", "no-cache");
  return c.json({
    access_token: tokens.accessToken,
    token_type: "Bearer",
    expires_in: tokens.expiresIn,
    refresh_token: tokens.refreshToken,
    scope: tokens.scope.join(" "),
  });
}
