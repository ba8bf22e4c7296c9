import { auth } from "@modelcontextprotocol/sdk/client/auth.js";
import {
  type AuthenticatorPage,
  launchChromium,
  openWithAuthenticator,
} from "@t3-connector/test-support/chromium";
import { MemoryProvider } from "@t3-connector/test-support/memory-provider";
import { connectModernHttp, MODERN_REVISION } from "@t3-connector/test-support/modern-client";
import {
  type CallbackServer,
  type OAuthServe,
  startCallbackServer,
  startOAuthServe,
} from "@t3-connector/test-support/oauth-serve";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signInAndDecide } from "./support/sign-in-in-browser.js";

// The OAuth session profile in front of a 2026-07-28 client (the SDK's v2 client, pinned): the
// token comes from the same sign-in (DCR, PKCE, a passkey in Chromium, consent), then the client
// discovers the server and reads with it as its bearer (ADR 0046). The guard is era-blind: the
// same token, the same 401 without it.
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

describe("serve --http with the OAuth profile, for a 2026-07-28 client", () => {
  it("discovers the server and calls t3_threads with the session's access token; without a token 401", async () => {
    const provider = new MemoryProvider(callback.url);
    expect(await auth(provider, { serverUrl: server.mcpUrl })).toBe("REDIRECT");
    const arrived = callback.next();
    await signInAndDecide(tab.page, provider.authorizationUrl as URL, {
      enrollmentCode: server.enrollmentCode,
      decision: "approve",
    });
    const code = (await arrived).get("code") as string;
    expect(await auth(provider, { serverUrl: server.mcpUrl, authorizationCode: code })).toBe("AUTHORIZED");
    const token = provider.saved?.access_token as string;

    const client = await connectModernHttp(server.mcpUrl, token);
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe(MODERN_REVISION);
      const discovered = await client.discover();
      expect(discovered.capabilities.tools).toBeDefined();
      const threads = await client.callTool({ name: "t3_threads", arguments: { environment: "beta" } });
      expect(threads.isError).toBeFalsy();
      expect(threads.structuredContent).toMatchObject({ complete: true });
    } finally {
      await client.close();
    }
    await expect(connectModernHttp(server.mcpUrl)).rejects.toThrow(/401|Unauthorized/);
  });
});
