/**
 * @module Checking `GET /authorize`. A bad client or redirect URI is answered on a page (never by
 * redirecting to a URI we could not verify); every other problem goes back to the client's
 * callback with `error`, `state` and `iss` (RFC 9207).
 */
import { ConnectorError } from "@t3-connector/core";
import type { OAuthClient } from "../clients/client-record.js";
import { redirectMatches } from "../clients/redirect-policy.js";
import { type OAuthSettings, READ_SCOPE } from "../settings/index.js";
import type { AuthorizationRequest } from "./sign-in-transactions.js";

export type AuthorizeOutcome =
  | { kind: "ok"; request: AuthorizationRequest }
  | { kind: "page"; message: string }
  | { kind: "redirect"; location: string };

export async function checkAuthorizeRequest(
  query: URLSearchParams,
  settings: OAuthSettings,
  findClient: (clientId: string) => Promise<OAuthClient>,
): Promise<AuthorizeOutcome> {
  const clientId = query.get("client_id");
  if (clientId === null || clientId === "") return { kind: "page", message: "The request names no client." };
  let client: OAuthClient;
  try {
    client = await findClient(clientId);
  } catch (error) {
    if (error instanceof ConnectorError)
      return { kind: "page", message: `The client cannot sign in here: ${error.message}.` };
    throw error;
  }
  const redirectUri = query.get("redirect_uri");
  if (redirectUri === null || !redirectMatches(client.redirectUris, redirectUri)) {
    return { kind: "page", message: "The redirect URI is not one this client registered." };
  }
  const state = query.get("state") ?? undefined;
  const refuse = (error: string, description: string): AuthorizeOutcome => ({
    kind: "redirect",
    location: callbackUrl(redirectUri, settings, { error, error_description: description, state }),
  });
  if (query.get("response_type") !== "code")
    return refuse("unsupported_response_type", "only response_type=code");
  const challenge = query.get("code_challenge");
  if (challenge === null || !/^[A-Za-z0-9_-]{43}$/.test(challenge)) {
    return refuse("invalid_request", "PKCE is required: code_challenge with code_challenge_method=S256");
  }
  if (query.get("code_challenge_method") !== "S256") {
    return refuse("invalid_request", "only code_challenge_method=S256 is accepted");
  }
  const resource = query.get("resource");
  if (resource !== settings.resource) {
    return refuse("invalid_target", `resource must be ${settings.resource}`);
  }
  // The person chooses on the consent page whatever the client asked: every scope the server
  // offers goes to the page, and the write box is ticked there (ADR 0070). The request's `scope`
  // decides nothing (ChatGPT's Reconnect sends none, the SDKs send the challenge's); what the
  // person leaves ticked is what the token carries. Writes come only with reads.
  const scope = [READ_SCOPE, ...settings.scopesSupported.filter((offered) => offered !== READ_SCOPE)];
  return { kind: "ok", request: { client, redirectUri, state, codeChallenge: challenge, scope, resource } };
}

/** The client's callback with our answer, `state` echoed and `iss` always (RFC 9207). */
export function callbackUrl(
  redirectUri: string,
  settings: OAuthSettings,
  params: Record<string, string | undefined>,
): string {
  const url = new URL(redirectUri);
  for (const [key, value] of Object.entries(params))
    if (value !== undefined) url.searchParams.set(key, value);
  url.searchParams.set("iss", settings.issuer);
  return url.href;
}
