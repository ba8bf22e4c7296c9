/**
 * The MCP SDK's `OAuthClientProvider`, kept in memory: what a native client stores between runs.
 * `redirectToAuthorization` records the URL; the test opens it in Chromium.
 */
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";

export class MemoryProvider implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = "";
  authorizationUrl: URL | undefined;
  lastState = "";
  clientMetadataUrl?: string;
  addClientAuthentication?: OAuthClientProvider["addClientAuthentication"];

  constructor(
    readonly redirectUrl: string,
    options: {
      clientMetadataUrl?: string;
      addClientAuthentication?: OAuthClientProvider["addClientAuthentication"];
    } = {},
  ) {
    if (options.clientMetadataUrl !== undefined) this.clientMetadataUrl = options.clientMetadataUrl;
    if (options.addClientAuthentication !== undefined)
      this.addClientAuthentication = options.addClientAuthentication;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "Test client",
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }

  state(): string {
    this.lastState = `state-${Math.random().toString(36).slice(2)}`;
    return this.lastState;
  }

  clientInformation() {
    return this.client;
  }

  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.client = info;
  }

  tokens() {
    return this.saved;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.saved = tokens;
  }

  redirectToAuthorization(url: URL): void {
    this.authorizationUrl = url;
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    return this.verifier;
  }
}
