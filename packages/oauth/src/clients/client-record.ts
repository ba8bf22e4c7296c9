import type { JSONWebKeySet } from "jose";

export type ClientAuthMethod = "none" | "private_key_jwt";

/** A client as the authorization server knows it, however it was registered. */
export interface OAuthClient {
  readonly clientId: string;
  readonly clientName: string;
  readonly redirectUris: readonly string[];
  readonly authMethod: ClientAuthMethod;
  /** `dcr`: registered at `/register`; `cimd`: its client_id is a metadata document URL. */
  readonly kind: "dcr" | "cimd";
  /** For `private_key_jwt`: the keys its assertions are signed with. */
  readonly jwks?: JSONWebKeySet;
}
