/**
 * @module The two discovery documents: RFC 9728 protected-resource metadata (what `/mcp` is and
 * who issues its tokens) and RFC 8414 authorization-server metadata (also served as OpenID
 * configuration, which ChatGPT probes). `code_challenge_methods_supported` must be there or MCP
 * clients refuse to go on. Both are typed by the MCP SDK's own metadata types (the shapes its
 * discovery parses), so a field this server publishes cannot drift from what clients read (ADR 0056).
 */
import type { OAuthMetadata, OAuthProtectedResourceMetadata } from "@modelcontextprotocol/server";
import { SIGNING_ALGORITHMS } from "../clients/client-assertion.js";
import type { OAuthSettings } from "../settings/index.js";

export const PROTECTED_RESOURCE_PATH = "/.well-known/oauth-protected-resource";
export const AUTHORIZATION_SERVER_PATH = "/.well-known/oauth-authorization-server";
export const OPENID_CONFIGURATION_PATH = "/.well-known/openid-configuration";

export function endpoints(settings: OAuthSettings) {
  return {
    authorization: `${settings.issuer}/authorize`,
    token: `${settings.issuer}/token`,
    registration: `${settings.issuer}/register`,
    revocation: `${settings.issuer}/revoke`,
    /** Path-inserted form for the resource `/mcp` (RFC 9728 §3.1). */
    resourceMetadata: `${settings.issuer}${PROTECTED_RESOURCE_PATH}/mcp`,
  };
}

export function protectedResourceMetadata(settings: OAuthSettings): OAuthProtectedResourceMetadata {
  return {
    resource: settings.resource,
    authorization_servers: [settings.issuer],
    scopes_supported: [...settings.scopesSupported],
    bearer_methods_supported: ["header"],
    resource_name: settings.scopesSupported.length > 1 ? "T3 Connector" : "T3 Connector (read tools)",
  };
}

export function authorizationServerMetadata(settings: OAuthSettings): OAuthMetadata {
  const urls = endpoints(settings);
  const authMethods = ["none", "private_key_jwt"];
  return {
    issuer: settings.issuer,
    authorization_endpoint: urls.authorization,
    token_endpoint: urls.token,
    ...(settings.dynamicRegistration ? { registration_endpoint: urls.registration } : {}),
    revocation_endpoint: urls.revocation,
    scopes_supported: [...settings.scopesSupported],
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    code_challenge_methods_supported: ["S256"],
    token_endpoint_auth_methods_supported: authMethods,
    token_endpoint_auth_signing_alg_values_supported: SIGNING_ALGORITHMS,
    revocation_endpoint_auth_methods_supported: authMethods,
    revocation_endpoint_auth_signing_alg_values_supported: SIGNING_ALGORITHMS,
    authorization_response_iss_parameter_supported: true,
    client_id_metadata_document_supported: true,
  };
}
