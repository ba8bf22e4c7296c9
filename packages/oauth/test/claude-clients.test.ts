import { type OAuthServe, startOAuthServe } from "@t3-connector/test-support/oauth-serve";
import { SoftPasskey } from "@t3-connector/test-support/soft-passkey";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CLAUDE_CLIENT_ID_URL,
  CLAUDE_CODE_CLIENT_ID_URL,
  DEFAULT_CLIENT_ID_URLS,
  type MetadataFetcher,
  PINNED_DOCUMENTS,
  unavailable,
} from "../src/index.js";
import { signInOnPage } from "./support/page-driver.js";
import { authorizeRequest, mcpToolsList, postForm } from "./support/pkce.js";

// Claude's two hosted client metadata documents, with this server offline: every fetch fails the
// way the network or claude.ai's edge fails, and the copies pinned in the package sign Claude in.
// Default settings (no loopbackRedirects, no clientIdUrls): what a user gets out of the box.
const CLAUDE_CALLBACK = "https://claude.ai/api/mcp/auth_callback";
let answer: "offline" | "challenge" | "html" | "not_found" = "offline";
const fetched: string[] = [];
const fetcher: MetadataFetcher = async (url) => {
  fetched.push(url);
  if (answer === "offline") throw unavailable(`${url} could not be fetched (TypeError)`);
  if (answer === "challenge")
    return { status: 403, cacheControl: undefined, body: "<html><title>Just a moment...</title></html>" };
  if (answer === "html") return { status: 200, cacheControl: undefined, body: "<!doctype html><p>hi</p>" };
  return { status: 404, cacheControl: undefined, body: "Not found" };
};
let server: OAuthServe;
let passkey: SoftPasskey;

beforeAll(async () => {
  server = await startOAuthServe({ loopbackRedirects: false }, { oauthFetcher: fetcher });
  passkey = new SoftPasskey(server.issuer);
});
afterAll(async () => {
  await server?.close();
});

async function signInAndExchange(clientId: string, redirectUri: string) {
  const request = authorizeRequest(server.issuer, { clientId, redirectUri, resource: server.mcpUrl });
  const callback = await signInOnPage(request.url, passkey, { enrollmentCode: server.enrollmentCode });
  expect(`${callback.origin}${callback.pathname}`).toBe(redirectUri);
  expect(callback.searchParams.get("state")).toBe(request.state);
  expect(callback.searchParams.get("iss")).toBe(server.issuer);
  const exchange = await postForm(`${server.issuer}/token`, {
    grant_type: "authorization_code",
    code: callback.searchParams.get("code") as string,
    client_id: clientId,
    redirect_uri: redirectUri,
    code_verifier: request.verifier,
    resource: server.mcpUrl,
  });
  return exchange;
}

describe("Claude's hosted client metadata documents", () => {
  it("ships a pinned copy of each, naming its own URL and its vendor's callbacks", () => {
    expect(DEFAULT_CLIENT_ID_URLS).toEqual(
      expect.arrayContaining([CLAUDE_CLIENT_ID_URL, CLAUDE_CODE_CLIENT_ID_URL]),
    );
    const claude = PINNED_DOCUMENTS.get(CLAUDE_CLIENT_ID_URL)?.document;
    expect(claude).toMatchObject({
      client_id: CLAUDE_CLIENT_ID_URL,
      client_name: "Claude",
      redirect_uris: [CLAUDE_CALLBACK],
      token_endpoint_auth_method: "none",
    });
    const code = PINNED_DOCUMENTS.get(CLAUDE_CODE_CLIENT_ID_URL)?.document;
    expect(code).toMatchObject({
      client_id: CLAUDE_CODE_CLIENT_ID_URL,
      client_name: "Claude Code",
      redirect_uris: ["http://localhost/callback", "http://127.0.0.1/callback"],
      token_endpoint_auth_method: "none",
    });
  });

  it("offline: claude.ai's client_id with PKCE and its callback reaches the passkey sign-in, and the exchange completes as a public client", async () => {
    answer = "offline";
    const request = authorizeRequest(server.issuer, {
      clientId: CLAUDE_CLIENT_ID_URL,
      redirectUri: CLAUDE_CALLBACK,
      resource: server.mcpUrl,
    });
    const page = await fetch(request.url);
    const html = await page.text();
    expect(page.status).toBe(200);
    expect(html).toContain('data-testid="sign-in"');
    expect(html).toContain("Claude");
    expect(html).not.toContain("invalid_client");

    const exchange = await signInAndExchange(CLAUDE_CLIENT_ID_URL, CLAUDE_CALLBACK);
    expect(exchange.status, JSON.stringify(exchange.body)).toBe(200);
    expect(exchange.body.access_token).toMatch(/^t3c_at_/);
    expect(await mcpToolsList(server.mcpUrl, exchange.body.access_token as string)).toBe(200);
    expect(fetched).toContain(CLAUDE_CLIENT_ID_URL);
    expect(server.stderr()).toContain(
      `oauth: live metadata document ${CLAUDE_CLIENT_ID_URL} not usable (${CLAUDE_CLIENT_ID_URL} could not be fetched (TypeError)); using the copy pinned in this release`,
    );
  });

  it("offline: Claude Code's client_id with a loopback callback on any port signs in and refreshes as a public client", async () => {
    answer = "offline";
    for (const redirectUri of ["http://127.0.0.1:54321/callback", "http://localhost:61999/callback"]) {
      const exchange = await signInAndExchange(CLAUDE_CODE_CLIENT_ID_URL, redirectUri);
      expect(exchange.status, JSON.stringify(exchange.body)).toBe(200);
      const refreshed = await postForm(`${server.issuer}/token`, {
        grant_type: "refresh_token",
        refresh_token: exchange.body.refresh_token as string,
        client_id: CLAUDE_CODE_CLIENT_ID_URL,
        resource: server.mcpUrl,
      });
      expect(refreshed.status).toBe(200);
    }
    expect(server.stderr()).toContain(
      `oauth: live metadata document ${CLAUDE_CODE_CLIENT_ID_URL} not usable`,
    );
    // A loopback callback on another path is not one the document lists.
    const elsewhere = authorizeRequest(server.issuer, {
      clientId: CLAUDE_CODE_CLIENT_ID_URL,
      redirectUri: "http://127.0.0.1:54321/other",
      resource: server.mcpUrl,
    });
    expect((await fetch(elsewhere.url, { redirect: "manual" })).status).toBe(400);
  });

  it("refuses a confidential client's credentials for the public Claude client", async () => {
    const refused = await postForm(`${server.issuer}/token`, {
      grant_type: "refresh_token",
      refresh_token: "t3c_rt_unknown",
      client_id: CLAUDE_CLIENT_ID_URL,
      client_secret: "guess",
    });
    expect(refused).toMatchObject({ status: 401, body: { error: "invalid_client" } });
  });
});
