import { auth } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  type AuthenticatorPage,
  launchChromium,
  openWithAuthenticator,
} from "@t3-connector/test-support/chromium";
import { MemoryProvider } from "@t3-connector/test-support/memory-provider";
import {
  type CallbackServer,
  type OAuthServe,
  startCallbackServer,
  startOAuthServe,
} from "@t3-connector/test-support/oauth-serve";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { revokeAllSessions } from "../src/index.js";
import { signInAndDecide } from "./support/sign-in-in-browser.js";

// The whole profile through the MCP SDK's own client OAuth support, the passkey page in real
// Chromium with a virtual authenticator, and the read tools over Streamable HTTP.
let server: OAuthServe;
let callback: CallbackServer;
let browser: Browser;
let tab: AuthenticatorPage;

beforeAll(async () => {
  [server, callback, browser] = await Promise.all([
    startOAuthServe(),
    startCallbackServer(),
    launchChromium(),
  ]);
  tab = await openWithAuthenticator(browser);
}, 60_000);

afterAll(async () => {
  await tab?.context.close();
  await browser?.close();
  await callback?.close();
  await server?.close();
});

const systemClock = { now: () => Date.now(), monotonic: () => performance.now() };

async function connect(provider: MemoryProvider): Promise<Client> {
  const client = new Client({ name: "oauth-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(server.mcpUrl), { authProvider: provider }));
  return client;
}

/** The SDK's flow up to the redirect, then the page, then the code exchange. Answers the callback query. */
async function authorize(provider: MemoryProvider, decision: "approve" | "deny" = "approve") {
  expect(await auth(provider, { serverUrl: server.mcpUrl })).toBe("REDIRECT");
  const url = provider.authorizationUrl as URL;
  const arrived = callback.next();
  await signInAndDecide(tab.page, url, { enrollmentCode: server.enrollmentCode, decision });
  const query = await arrived;
  expect(query.get("state")).toBe(provider.lastState);
  expect(query.get("iss")).toBe(server.issuer);
  return { query, url };
}

async function tokenRequest(params: Record<string, string>) {
  const response = await fetch(`${server.issuer}/token`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(params),
  });
  return { status: response.status, body: (await response.json()) as Record<string, string> };
}

async function mcpStatus(accessToken: string | undefined): Promise<number> {
  const response = await fetch(server.mcpUrl, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      ...(accessToken === undefined ? {} : { Authorization: `Bearer ${accessToken}` }),
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
  });
  return response.status;
}

describe("serve --http with the OAuth session profile", () => {
  it("answers an unauthenticated POST /mcp with 401 naming the resource metadata and the scope", async () => {
    const response = await fetch(server.mcpUrl, { method: "POST", body: "{}" });
    expect(response.status).toBe(401);
    const challenge = response.headers.get("www-authenticate") ?? "";
    expect(challenge).toContain(
      `resource_metadata="${server.issuer}/.well-known/oauth-protected-resource/mcp"`,
    );
    expect(challenge).toContain('scope="t3:read"');
    expect(server.ready.auth).toBe("oauth");
    // No write config: reads only, said at start, and t3:write is not offered.
    expect(server.stderr()).toContain("reads only: no write config at");
    expect(server.ready.url).toBe(server.mcpUrl);
    const metadata = (await (
      await fetch(`${server.issuer}/.well-known/openid-configuration`)
    ).json()) as Record<string, unknown>;
    expect(metadata).toMatchObject({
      issuer: server.issuer,
      code_challenge_methods_supported: ["S256"],
      authorization_response_iss_parameter_supported: true,
      client_id_metadata_document_supported: true,
      scopes_supported: ["t3:read"],
    });
  });

  it("signs in with DCR, PKCE, a passkey and consent, reads the 15 tools, and a reused code ends the session", async () => {
    const provider = new MemoryProvider(callback.url);
    const { query } = await authorize(provider);
    const code = query.get("code") as string;
    expect(await auth(provider, { serverUrl: server.mcpUrl, authorizationCode: code })).toBe("AUTHORIZED");
    const first = provider.saved;
    expect(first?.access_token).toMatch(/^t3c_at_/);
    expect(first?.expires_in).toBeLessThanOrEqual(60);

    const client = await connect(provider);
    const tools = await client.listTools();
    expect(tools.tools).toHaveLength(15);
    const threads = await client.callTool({ name: "t3_threads", arguments: { environment: "beta" } });
    expect(threads.isError).not.toBe(true);
    await client.close();

    // The same code again: refused, and the session it started is no longer trusted.
    const clientId = provider.client?.client_id as string;
    const reused = await tokenRequest({
      grant_type: "authorization_code",
      code,
      client_id: clientId,
      redirect_uri: callback.url,
      code_verifier: provider.verifier,
      resource: server.mcpUrl,
    });
    expect(reused).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
    expect(await mcpStatus(first?.access_token)).toBe(401);
  });

  it("rotates the refresh token, and reuse of the old one ends the session", async () => {
    const provider = new MemoryProvider(callback.url);
    const { query } = await authorize(provider);
    await auth(provider, { serverUrl: server.mcpUrl, authorizationCode: query.get("code") as string });
    const clientId = provider.client?.client_id as string;
    const oldRefresh = provider.saved?.refresh_token as string;
    const rotated = await tokenRequest({
      grant_type: "refresh_token",
      refresh_token: oldRefresh,
      client_id: clientId,
      resource: server.mcpUrl,
    });
    expect(rotated.status).toBe(200);
    expect(rotated.body.refresh_token).not.toBe(oldRefresh);
    expect(await mcpStatus(rotated.body.access_token)).toBe(200);

    const reuse = await tokenRequest({
      grant_type: "refresh_token",
      refresh_token: oldRefresh,
      client_id: clientId,
    });
    expect(reuse).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
    expect(await mcpStatus(rotated.body.access_token)).toBe(401);
    const afterwards = await tokenRequest({
      grant_type: "refresh_token",
      refresh_token: rotated.body.refresh_token as string,
      client_id: clientId,
    });
    expect(afterwards.body.error).toBe("invalid_grant");
  });

  it("refuses a token request for another resource with invalid_target", async () => {
    const provider = new MemoryProvider(callback.url);
    const { query } = await authorize(provider);
    const refused = await tokenRequest({
      grant_type: "authorization_code",
      code: query.get("code") as string,
      client_id: provider.client?.client_id as string,
      redirect_uri: callback.url,
      code_verifier: provider.verifier,
      resource: "https://elsewhere.example/mcp",
    });
    expect(refused).toMatchObject({ status: 400, body: { error: "invalid_target" } });
  });

  it("makes the next call 401 after revoke-all from the terminal, and after /revoke", async () => {
    const provider = new MemoryProvider(callback.url);
    const { query } = await authorize(provider);
    await auth(provider, { serverUrl: server.mcpUrl, authorizationCode: query.get("code") as string });
    const token = provider.saved?.access_token as string;
    expect(await mcpStatus(token)).toBe(200);
    expect(await revokeAllSessions(server.stateDir, systemClock)).toBeGreaterThanOrEqual(1);
    expect(await mcpStatus(token)).toBe(401);

    const second = new MemoryProvider(callback.url);
    const again = await authorize(second);
    await auth(second, { serverUrl: server.mcpUrl, authorizationCode: again.query.get("code") as string });
    expect(await mcpStatus(second.saved?.access_token)).toBe(200);
    const revoked = await fetch(`${server.issuer}/revoke`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        token: second.saved?.refresh_token as string,
        client_id: second.client?.client_id as string,
      }),
    });
    expect(revoked.status).toBe(200);
    expect(await mcpStatus(second.saved?.access_token)).toBe(401);
  });

  it("sends access_denied to the callback when consent is denied", async () => {
    const provider = new MemoryProvider(callback.url);
    const { query } = await authorize(provider, "deny");
    expect(query.get("error")).toBe("access_denied");
    expect(query.get("code")).toBeNull();
  });

  it("refuses a wrong resource, missing or plain PKCE at /authorize, and a wrong redirect", async () => {
    const provider = new MemoryProvider(callback.url);
    await auth(provider, { serverUrl: server.mcpUrl });
    const base = provider.authorizationUrl as URL;
    const variant = async (change: (query: URLSearchParams) => void) => {
      const url = new URL(base);
      change(url.searchParams);
      return fetch(url, { redirect: "manual" });
    };
    const errorOf = (response: Response) =>
      new URL(response.headers.get("location") ?? "").searchParams.get("error");

    const wrongResource = await variant((q) => q.set("resource", "https://elsewhere.example/mcp"));
    expect(errorOf(wrongResource)).toBe("invalid_target");
    const noPkce = await variant((q) => {
      q.delete("code_challenge");
      q.delete("code_challenge_method");
    });
    expect(errorOf(noPkce)).toBe("invalid_request");
    const plain = await variant((q) => q.set("code_challenge_method", "plain"));
    expect(errorOf(plain)).toBe("invalid_request");
    const wrongRedirect = await variant((q) => q.set("redirect_uri", "http://127.0.0.1:9/elsewhere"));
    expect(wrongRedirect.status).toBe(400);
    expect(wrongRedirect.headers.get("location")).toBeNull();
    expect(wrongRedirect.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
  });

  it("pins Host to the issuer and refuses a foreign Origin on /mcp before any token check", async () => {
    const { request } = await import("node:http");
    const statusFor = (headers: Record<string, string>, pathName = "/mcp") =>
      new Promise<number>((resolve, reject) => {
        const url = new URL(server.issuer);
        const outgoing = request(
          { host: "127.0.0.1", port: url.port, path: pathName, method: "POST", headers },
          (response) => {
            response.resume();
            resolve(response.statusCode ?? 0);
          },
        );
        outgoing.on("error", reject);
        outgoing.end("{}");
      });
    const host = new URL(server.issuer).host;
    expect(await statusFor({ Host: host })).toBe(401);
    expect(await statusFor({ Host: host, Origin: "https://evil.example" })).toBe(403);
    // 127.0.0.1 reaches the socket, but it is not the issuer's name: no token is even asked for.
    expect(await statusFor({ Host: `127.0.0.1:${new URL(server.issuer).port}` })).toBe(403);
    expect(await statusFor({ Host: `127.0.0.1:${new URL(server.issuer).port}` }, "/token")).toBe(403);
  });

  it("refuses a consent call without the transaction's cookie, and GET never grants", async () => {
    const provider = new MemoryProvider(callback.url);
    await auth(provider, { serverUrl: server.mcpUrl });
    const page = await fetch(provider.authorizationUrl as URL);
    const transaction = /data-transaction="([^"]+)"/.exec(await page.text())?.[1];
    expect(transaction).toBeDefined();
    const consent = await fetch(`${server.issuer}/oauth/consent`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: server.issuer },
      body: JSON.stringify({ transaction, decision: "approve" }),
    });
    expect(consent.status).toBe(400);
    expect(((await consent.json()) as { error: string }).error).toBe("access_denied");
    const cookie = page.headers.get("set-cookie")?.split(";")[0] ?? "";
    const unsigned = await fetch(`${server.issuer}/oauth/consent`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: server.issuer, Cookie: cookie },
      body: JSON.stringify({ transaction, decision: "approve" }),
    });
    // The right cookie, but nobody signed in with a passkey: still no code.
    expect(((await unsigned.json()) as { error: string }).error).toBe("access_denied");
    expect((await fetch(`${server.issuer}/oauth/consent?decision=approve`)).status).toBe(404);
  });

  it("refuses a DCR redirect URI that is not on the allowlist", async () => {
    const response = await fetch(`${server.issuer}/register`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ redirect_uris: ["https://attacker.example/callback"], client_name: "x" }),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toBe("invalid_redirect_uri");
  });

  // Runs last: every flow above has logged by now (at debug level).
  it("logs sessions and clients but never a token, code, state or cookie", () => {
    const logged = server.stderr().replace(/enrollment code \(one use\): \S+/, "");
    expect(logged).toContain("oauth: session s_");
    for (const secret of ["t3c_at_", "t3c_rt_", "t3c_code_", "t3c_tx_", "state-"])
      expect(logged).not.toContain(secret);
  });
});
