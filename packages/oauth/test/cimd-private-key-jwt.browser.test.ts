import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createAdaptorServer } from "@hono/node-server";
import { auth } from "@modelcontextprotocol/sdk/client/auth.js";
import { createPrivateKeyJwtAuth } from "@modelcontextprotocol/sdk/client/auth-extensions.js";
import {
  type AuthenticatorPage,
  launchChromium,
  openWithAuthenticator,
} from "@t3-connector/test-support/chromium";
import { freePort } from "@t3-connector/test-support/free-port";
import { MemoryProvider } from "@t3-connector/test-support/memory-provider";
import { type CallbackServer, startCallbackServer } from "@t3-connector/test-support/oauth-serve";
import { Hono } from "hono";
import { exportJWK, generateKeyPair } from "jose";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type MetadataFetcher,
  type OAuthProfile,
  openOAuthProfile,
  parseOAuthSettings,
} from "../src/index.js";
import { signInAndDecide } from "./support/sign-in-in-browser.js";

// A CIMD client authenticating with private_key_jwt. The profile is mounted in a minimal host app
// whose /mcp answers 200 behind the guard; the client's metadata document is "served" by an
// injected fetcher (the real one is HTTPS-only, which a local test cannot offer), and every fetch
// it gets is recorded.
const CLIENT_ID = "https://client.example.test/oauth/client.json";
let callback: CallbackServer;
let browser: Browser;
let tab: AuthenticatorPage;
let profile: OAuthProfile;
let issuer: string;
let stateDir: string;
let closeHost: () => Promise<void>;
let privateJwk: Record<string, unknown>;
const fetched: string[] = [];

beforeAll(async () => {
  [callback, browser] = await Promise.all([startCallbackServer(), launchChromium()]);
  tab = await openWithAuthenticator(browser);
  const { publicKey, privateKey } = await generateKeyPair("ES256", { extractable: true });
  privateJwk = (await exportJWK(privateKey)) as Record<string, unknown>;
  const document = {
    client_id: CLIENT_ID,
    client_name: "Key-holding client",
    redirect_uris: [callback.url],
    token_endpoint_auth_method: "private_key_jwt",
    jwks: { keys: [{ ...(await exportJWK(publicKey)), alg: "ES256", use: "sig" }] },
  };
  const fetcher: MetadataFetcher = async (url) => {
    fetched.push(url);
    return url === CLIENT_ID
      ? { status: 200, cacheControl: "max-age=300", body: JSON.stringify(document) }
      : { status: 404, cacheControl: undefined, body: "" };
  };
  const port = await freePort();
  issuer = `http://localhost:${port}`;
  stateDir = path.join(await mkdtemp(path.join(os.tmpdir(), "t3c-cimd-")), "state");
  const settings = parseOAuthSettings(
    { issuer, stateDir, loopbackRedirects: true, clientIdUrls: [CLIENT_ID], dynamicRegistration: false },
    { configPath: "test" },
  );
  profile = await openOAuthProfile(settings, { log: () => {}, fetcher });
  const app = new Hono();
  profile.mount(app);
  app.use("/mcp", profile.mcpGuard);
  app.post("/mcp", (c) => c.json({ jsonrpc: "2.0", id: 1, result: {} }));
  const host = createAdaptorServer({ fetch: app.fetch });
  await new Promise<void>((resolve) => host.listen(port, "127.0.0.1", resolve));
  closeHost = () => new Promise<void>((resolve) => host.close(() => resolve()));
}, 60_000);

afterAll(async () => {
  await tab?.context.close();
  await browser?.close();
  await callback?.close();
  await closeHost?.();
  if (stateDir !== undefined) await rm(path.dirname(stateDir), { recursive: true, force: true });
});

function keyHoldingProvider(): MemoryProvider {
  return new MemoryProvider(callback.url, {
    clientMetadataUrl: CLIENT_ID,
    addClientAuthentication: createPrivateKeyJwtAuth({
      issuer: CLIENT_ID,
      subject: CLIENT_ID,
      privateKey: privateJwk,
      alg: "ES256",
      audience: `${issuer}/token`,
    }),
  });
}

const mcpStatus = async (token: string | undefined) =>
  (
    await fetch(`${issuer}/mcp`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "x" } }),
    })
  ).status;

describe("a CIMD client with private_key_jwt", () => {
  it("signs in, gets a token bound to /mcp, and refreshes with a fresh assertion", async () => {
    const provider = keyHoldingProvider();
    expect(await auth(provider, { serverUrl: `${issuer}/mcp` })).toBe("REDIRECT");
    expect(provider.authorizationUrl?.searchParams.get("client_id")).toBe(CLIENT_ID);
    const arrived = callback.next();
    await signInAndDecide(tab.page, provider.authorizationUrl as URL, {
      enrollmentCode: profile.enrollmentCode() as string,
      decision: "approve",
    });
    const query = await arrived;
    expect(query.get("iss")).toBe(issuer);
    await auth(provider, { serverUrl: `${issuer}/mcp`, authorizationCode: query.get("code") as string });
    const first = provider.saved;
    expect(await mcpStatus(first?.access_token)).toBe(200);

    // The SDK refreshes when it holds a refresh token and no code: a new assertion, a new pair.
    expect(await auth(provider, { serverUrl: `${issuer}/mcp` })).toBe("AUTHORIZED");
    expect(provider.saved?.refresh_token).not.toBe(first?.refresh_token);
    expect(fetched.filter((url) => url === CLIENT_ID)).toHaveLength(1);
  });

  it("refuses a token request without the client's assertion", async () => {
    const response = await fetch(`${issuer}/token`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: "x", client_id: CLIENT_ID }),
    });
    expect(response.status).toBe(401);
    expect(((await response.json()) as { error: string }).error).toBe("invalid_client");
  });

  it("refuses an unknown client-id URL without fetching it", async () => {
    const url = new URL(`${issuer}/authorize`);
    url.searchParams.set("client_id", "https://unknown.example/client.json");
    url.searchParams.set("redirect_uri", callback.url);
    const response = await fetch(url, { redirect: "manual" });
    expect(response.status).toBe(400);
    expect(fetched).not.toContain("https://unknown.example/client.json");
  });

  it("refuses a replayed client assertion", async () => {
    const sign = createPrivateKeyJwtAuth({
      issuer: CLIENT_ID,
      subject: CLIENT_ID,
      privateKey: privateJwk,
      alg: "ES256",
      audience: `${issuer}/token`,
    });
    const params = new URLSearchParams({ grant_type: "refresh_token", refresh_token: "unknown" });
    await sign(new Headers(), params, `${issuer}/token`);
    const send = () =>
      fetch(`${issuer}/token`, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: params,
      }).then(async (response) => ((await response.json()) as { error: string }).error);
    // First use: the client is authenticated, the (made-up) refresh token is not.
    expect(await send()).toBe("invalid_grant");
    expect(await send()).toBe("invalid_client");
  });
});
