import { auth } from "@modelcontextprotocol/sdk/client/auth.js";
import { createPrivateKeyJwtAuth } from "@modelcontextprotocol/sdk/client/auth-extensions.js";
import { MemoryProvider } from "@t3-connector/test-support/memory-provider";
import { type OAuthServe, startOAuthServe } from "@t3-connector/test-support/oauth-serve";
import { SoftPasskey } from "@t3-connector/test-support/soft-passkey";
import { exportJWK, generateKeyPair } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CHATGPT_CLIENT_ID_URL,
  CLAUDE_CLIENT_ID_URL,
  CLAUDE_CODE_CLIENT_ID_URL,
  type MetadataFetcher,
} from "../src/index.js";
import { signInOnPage } from "./support/page-driver.js";
import { authorizeRequest, mcpToolsList, postForm } from "./support/pkce.js";

// Each client as it really signs in, through serveHttp (the read tools, the simulator) with a
// metadata fetcher this test controls: ChatGPT (CIMD + private_key_jwt, no scope on Reconnect),
// claude.ai (CIMD public client, its callback, endpoints appended to the MCP URL), Claude Code
// (CIMD, loopback callback on any port), VS Code / Cursor (DCR, loopback) and the MCP Inspector
// (DCR through the SDK's own flow, its localhost callback).
const CHATGPT_CALLBACK = "https://chatgpt.com/connector_platform_oauth_redirect";
const CLAUDE_CALLBACK = "https://claude.ai/api/mcp/auth_callback";
let server: OAuthServe;
let passkey: SoftPasskey;
let chatgptKey: Record<string, unknown>;
const documents = new Map<string, unknown>();
const fetcher: MetadataFetcher = async (url) => {
  const document = documents.get(url);
  return document === undefined
    ? { status: 404, cacheControl: undefined, body: "" }
    : { status: 200, cacheControl: "max-age=600", body: JSON.stringify(document) };
};

beforeAll(async () => {
  const { publicKey, privateKey } = await generateKeyPair("RS256", { extractable: true });
  chatgptKey = (await exportJWK(privateKey)) as Record<string, unknown>;
  documents.set(CHATGPT_CLIENT_ID_URL, {
    client_id: CHATGPT_CLIENT_ID_URL,
    client_name: "ChatGPT",
    redirect_uris: [CHATGPT_CALLBACK],
    token_endpoint_auth_method: "private_key_jwt",
    jwks: { keys: [{ ...(await exportJWK(publicKey)), alg: "RS256", use: "sig", kid: "k1" }] },
  });
  documents.set(CLAUDE_CLIENT_ID_URL, {
    client_id: CLAUDE_CLIENT_ID_URL,
    client_name: "Claude",
    client_uri: "https://claude.ai",
    redirect_uris: [CLAUDE_CALLBACK],
    grant_types: ["authorization_code", "refresh_token", "urn:ietf:params:oauth:grant-type:jwt-bearer"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
  });
  documents.set(CLAUDE_CODE_CLIENT_ID_URL, {
    client_id: CLAUDE_CODE_CLIENT_ID_URL,
    client_name: "Claude Code",
    redirect_uris: ["http://localhost/callback", "http://127.0.0.1/callback"],
    token_endpoint_auth_method: "none",
  });
  server = await startOAuthServe({}, { oauthFetcher: fetcher });
  passkey = new SoftPasskey(server.issuer);
});
afterAll(async () => {
  await server?.close();
});

/** A hand-built client: authorize at `base + authorizePath`, the page, then the code exchange. */
async function publicClientSignsIn(options: {
  clientId: string;
  redirectUri: string;
  base?: string;
  scope?: string;
}) {
  const base = options.base ?? server.issuer;
  const asked = authorizeRequest(base, { ...options, resource: server.mcpUrl });
  const back = await signInOnPage(asked.url, passkey, { enrollmentCode: server.enrollmentCode });
  expect(`${back.origin}${back.pathname}`).toBe(options.redirectUri);
  expect(back.searchParams.get("state")).toBe(asked.state);
  const exchange = await postForm(`${base}/token`, {
    grant_type: "authorization_code",
    code: back.searchParams.get("code") as string,
    client_id: options.clientId,
    redirect_uri: options.redirectUri,
    code_verifier: asked.verifier,
    resource: server.mcpUrl,
  });
  expect(exchange.status, JSON.stringify(exchange.body)).toBe(200);
  return exchange.body as { access_token: string; refresh_token: string; scope: string };
}

function chatgptProvider(): MemoryProvider {
  return new MemoryProvider(CHATGPT_CALLBACK, {
    clientMetadataUrl: CHATGPT_CLIENT_ID_URL,
    addClientAuthentication: createPrivateKeyJwtAuth({
      issuer: CHATGPT_CLIENT_ID_URL,
      subject: CHATGPT_CLIENT_ID_URL,
      privateKey: chatgptKey,
      alg: "RS256",
      audience: `${server.issuer}/token`,
    }),
  });
}

describe("the client matrix", () => {
  it("ChatGPT: CIMD with private_key_jwt, a refresh with a fresh assertion, and a Reconnect without scope", async () => {
    const provider = chatgptProvider();
    expect(await auth(provider, { serverUrl: server.mcpUrl })).toBe("REDIRECT");
    expect(provider.authorizationUrl?.searchParams.get("client_id")).toBe(CHATGPT_CLIENT_ID_URL);
    const back = await signInOnPage(provider.authorizationUrl as URL, passkey, {
      enrollmentCode: server.enrollmentCode,
    });
    expect(back.searchParams.get("iss")).toBe(server.issuer);
    const code = back.searchParams.get("code") as string;
    expect(await auth(provider, { serverUrl: server.mcpUrl, authorizationCode: code })).toBe("AUTHORIZED");
    const first = provider.saved;
    expect(await mcpToolsList(server.mcpUrl, first?.access_token)).toBe(200);
    expect(await auth(provider, { serverUrl: server.mcpUrl })).toBe("AUTHORIZED");
    expect(provider.saved?.refresh_token).not.toBe(first?.refresh_token);
    // Without its key the refresh token is useless.
    const keyless = await postForm(`${server.issuer}/token`, {
      grant_type: "refresh_token",
      refresh_token: provider.saved?.refresh_token as string,
      client_id: CHATGPT_CLIENT_ID_URL,
    });
    expect(keyless).toMatchObject({ status: 401, body: { error: "invalid_client" } });

    // Reconnect: /authorize without scope gets the read scope.
    const reconnect = authorizeRequest(server.issuer, {
      clientId: CHATGPT_CLIENT_ID_URL,
      redirectUri: CHATGPT_CALLBACK,
      resource: server.mcpUrl,
    });
    expect(reconnect.url.searchParams.has("scope")).toBe(false);
    const again = await signInOnPage(reconnect.url, passkey);
    const second = chatgptProvider();
    second.verifier = reconnect.verifier;
    second.client = { client_id: CHATGPT_CLIENT_ID_URL };
    expect(
      await auth(second, {
        serverUrl: server.mcpUrl,
        authorizationCode: again.searchParams.get("code") as string,
      }),
    ).toBe("AUTHORIZED");
    expect(second.saved?.scope).toBe("t3:read");
  });

  it("claude.ai: CIMD public client with its callback, and endpoints appended to the MCP URL", async () => {
    const tokens = await publicClientSignsIn({
      clientId: CLAUDE_CLIENT_ID_URL,
      redirectUri: CLAUDE_CALLBACK,
      base: server.mcpUrl,
    });
    expect(await mcpToolsList(server.mcpUrl, tokens.access_token)).toBe(200);
    const refreshed = await postForm(`${server.mcpUrl}/token`, {
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token,
      client_id: CLAUDE_CLIENT_ID_URL,
      resource: server.mcpUrl,
    });
    expect(refreshed.status).toBe(200);
    // Its DCR path, appended the same way: one registration however often it registers.
    const register = () =>
      fetch(`${server.mcpUrl}/register`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ client_name: "Claude", redirect_uris: [CLAUDE_CALLBACK] }),
      }).then(async (response) => ({
        status: response.status,
        body: (await response.json()) as { client_id: string },
      }));
    const [one, two] = [await register(), await register()];
    expect(one.status).toBe(201);
    expect(two.body.client_id).toBe(one.body.client_id);
  });

  it("Claude Code: CIMD with a loopback callback on whatever port it picked", async () => {
    for (const redirectUri of ["http://localhost:38517/callback", "http://127.0.0.1:50001/callback"]) {
      const tokens = await publicClientSignsIn({ clientId: CLAUDE_CODE_CLIENT_ID_URL, redirectUri });
      expect(await mcpToolsList(server.mcpUrl, tokens.access_token)).toBe(200);
    }
  });

  it("VS Code and Cursor: DCR with a loopback callback", async () => {
    for (const [name, redirectUri] of [
      ["Visual Studio Code", "http://127.0.0.1:33418/"],
      ["Cursor", "http://127.0.0.1:45123/callback"],
    ] as const) {
      const registered = await fetch(`${server.issuer}/register`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({
          client_name: name,
          redirect_uris: [redirectUri],
          grant_types: ["authorization_code", "refresh_token"],
          response_types: ["code"],
          token_endpoint_auth_method: "none",
        }),
      });
      expect(registered.status).toBe(201);
      const clientId = ((await registered.json()) as { client_id: string }).client_id;
      const tokens = await publicClientSignsIn({ clientId, redirectUri, scope: "t3:read" });
      expect(await mcpToolsList(server.mcpUrl, tokens.access_token)).toBe(200);
    }
  });

  it("the MCP Inspector: the SDK's own flow, DCR with its localhost callback", async () => {
    const provider = new MemoryProvider("http://localhost:6274/oauth/callback");
    expect(await auth(provider, { serverUrl: server.mcpUrl })).toBe("REDIRECT");
    expect(provider.client?.client_id).toMatch(/^dcr_/);
    const back = await signInOnPage(provider.authorizationUrl as URL, passkey);
    expect(back.origin).toBe("http://localhost:6274");
    const code = back.searchParams.get("code") as string;
    expect(await auth(provider, { serverUrl: server.mcpUrl, authorizationCode: code })).toBe("AUTHORIZED");
    expect(await mcpToolsList(server.mcpUrl, provider.saved?.access_token)).toBe(200);
  });
});
