import { randomBytes } from "node:crypto";
import { type OAuthServe, startOAuthServe } from "@t3-connector/test-support/oauth-serve";
import { SoftPasskey } from "@t3-connector/test-support/soft-passkey";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CHATGPT_CLIENT_ID_URL,
  CLIENT_ASSERTION_TYPE,
  fetchFailureReason,
  type MetadataFetcher,
  PINNED_DOCUMENTS,
  unavailable,
} from "../src/index.js";
import { signInOnPage } from "./support/page-driver.js";
import { authorizeRequest, mcpToolsList, postForm } from "./support/pkce.js";

// ChatGPT's client metadata document, pinned like Claude's (ADR 0070): with this server offline
// (every fetch of chatgpt.com fails as a lookup with no network does), `client_id=
// https://chatgpt.com/oauth/client.json` still reaches the consent page from the pinned copy, and
// the log says which copy and why. The pinned copy holds no signing key, so the code exchange
// waits for the live document: offline it is refused saying why, and once chatgpt.com answers the
// same code is exchanged with the live keys. Default settings: what a user gets out of the box.
const CHATGPT_CALLBACK = "https://chatgpt.com/connector_platform_oauth_redirect";
const NO_NETWORK = new TypeError("fetch failed", {
  cause: Object.assign(new Error("getaddrinfo EAI_AGAIN chatgpt.com"), { code: "EAI_AGAIN" }),
});
let online = false;
let liveDocument: Record<string, unknown>;
let privateKey: Awaited<ReturnType<typeof generateKeyPair>>["privateKey"];
const fetcher: MetadataFetcher = async (url) => {
  // The real fetcher's words for a failed lookup (metadata-fetcher.ts).
  if (!online) throw unavailable(`${url} could not be fetched: ${fetchFailureReason(NO_NETWORK, 5_000)}`);
  return { status: 200, cacheControl: "max-age=600", body: JSON.stringify(liveDocument) };
};
let server: OAuthServe;
let passkey: SoftPasskey;

beforeAll(async () => {
  const pair = await generateKeyPair("ES256", { extractable: true });
  privateKey = pair.privateKey;
  liveDocument = {
    client_id: CHATGPT_CLIENT_ID_URL,
    client_name: "ChatGPT",
    redirect_uris: [CHATGPT_CALLBACK],
    token_endpoint_auth_method: "private_key_jwt",
    jwks: { keys: [{ ...(await exportJWK(pair.publicKey)), alg: "ES256", use: "sig", kid: "live-1" }] },
  };
  server = await startOAuthServe({ loopbackRedirects: false }, { oauthFetcher: fetcher });
  passkey = new SoftPasskey(server.issuer);
});
afterAll(async () => {
  await server?.close();
});

function assertion(): Promise<string> {
  return new SignJWT({})
    .setProtectedHeader({ alg: "ES256", kid: "live-1" })
    .setIssuer(CHATGPT_CLIENT_ID_URL)
    .setSubject(CHATGPT_CLIENT_ID_URL)
    .setAudience(`${server.issuer}/token`)
    .setIssuedAt()
    .setExpirationTime("2m")
    .setJti(randomBytes(12).toString("base64url"))
    .sign(privateKey);
}

describe("ChatGPT's client metadata document, pinned", () => {
  it("ships a copy with its name, its callback and private_key_jwt, and no key", () => {
    const pinned = PINNED_DOCUMENTS.get(CHATGPT_CLIENT_ID_URL)?.document;
    expect(pinned).toEqual({
      client_id: CHATGPT_CLIENT_ID_URL,
      client_name: "ChatGPT",
      redirect_uris: [CHATGPT_CALLBACK],
      token_endpoint_auth_method: "private_key_jwt",
    });
  });

  it("offline: reaches the consent page from the pinned copy; the exchange waits for the live keys and says why", async () => {
    online = false;
    const request = authorizeRequest(server.issuer, {
      clientId: CHATGPT_CLIENT_ID_URL,
      redirectUri: CHATGPT_CALLBACK,
      resource: server.mcpUrl,
    });
    const page = await fetch(request.url);
    const html = await page.text();
    expect(page.status, html).toBe(200);
    expect(html).toContain('data-testid="consent-client">ChatGPT');
    expect(server.stderr()).toContain(
      `oauth: live metadata document ${CHATGPT_CLIENT_ID_URL} not usable (${CHATGPT_CLIENT_ID_URL} could not be fetched: DNS: the host name did not resolve (EAI_AGAIN)); using the copy pinned in this release (served 2026-10-04)`,
    );

    const back = await signInOnPage(request.url, passkey, { enrollmentCode: server.enrollmentCode });
    expect(`${back.origin}${back.pathname}`).toBe(CHATGPT_CALLBACK);
    const exchange = async () =>
      postForm(`${server.issuer}/token`, {
        grant_type: "authorization_code",
        code: back.searchParams.get("code") as string,
        client_id: CHATGPT_CLIENT_ID_URL,
        client_assertion_type: CLIENT_ASSERTION_TYPE,
        client_assertion: await assertion(),
        redirect_uri: CHATGPT_CALLBACK,
        code_verifier: request.verifier,
        resource: server.mcpUrl,
      });
    const refused = await exchange();
    expect(refused.status).toBe(401);
    expect(refused.body).toMatchObject({
      error: "invalid_client",
      error_description: expect.stringContaining(
        "ChatGPT's signing keys come only from its live metadata document, which could not be used (",
      ),
    });
    expect(String(refused.body.error_description)).toContain(
      "DNS: the host name did not resolve (EAI_AGAIN)",
    );

    // chatgpt.com answers again: the same code is exchanged with the live document's key.
    online = true;
    const exchanged = await exchange();
    expect(exchanged.status, JSON.stringify(exchanged.body)).toBe(200);
    expect(await mcpToolsList(server.mcpUrl, exchanged.body.access_token as string)).toBe(200);
  });
});
