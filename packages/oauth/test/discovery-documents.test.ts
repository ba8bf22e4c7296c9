import {
  discoverAuthorizationServerMetadata,
  discoverOAuthProtectedResourceMetadata,
} from "@modelcontextprotocol/client";
import { type OAuthServe, startOAuthServe } from "@t3-connector/test-support/oauth-serve";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// The two discovery documents are typed by the MCP SDK's metadata types (ADR 0056); here the v2
// client's own discovery reads them over a real socket and parses them with the SDK's schemas, as a
// client would before it signs in.
let server: OAuthServe;
beforeAll(async () => {
  server = await startOAuthServe();
});
afterAll(async () => {
  await server?.close();
});

describe("discovery as the SDK's client reads it", () => {
  it("parses the protected-resource document of /mcp and names the issuer", async () => {
    const resource = await discoverOAuthProtectedResourceMetadata(server.mcpUrl);
    expect(resource).toMatchObject({
      resource: server.mcpUrl,
      authorization_servers: [server.issuer],
      bearer_methods_supported: ["header"],
    });
  });

  it("parses the authorization-server document with PKCE S256 and client ID metadata documents", async () => {
    const metadata = await discoverAuthorizationServerMetadata(server.issuer);
    expect(metadata).toMatchObject({
      issuer: server.issuer,
      token_endpoint: `${server.issuer}/token`,
      code_challenge_methods_supported: ["S256"],
      client_id_metadata_document_supported: true,
      authorization_response_iss_parameter_supported: true,
    });
  });
});
