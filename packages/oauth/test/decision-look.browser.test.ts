/**
 * The OAuth sign-in and consent pages keep the look of every page a person decides on (ADR 0073),
 * at 390×844 in real Chromium: each visible button and input at least 44 px tall with a 16 px
 * font, nothing scrolls sideways, and under a dark colour scheme the page is dark. Screenshots of
 * both schemes are kept in test-output/screenshots.
 */
import {
  type AuthenticatorPage,
  launchChromium,
  openWithAuthenticator,
} from "@t3-connector/test-support/chromium";
import { expectDecisionLook } from "@t3-connector/test-support/decision-look";
import {
  type CallbackServer,
  type OAuthServe,
  startCallbackServer,
  startOAuthServe,
} from "@t3-connector/test-support/oauth-serve";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, it } from "vitest";
import { authorizeRequest } from "./support/pkce.js";

let server: OAuthServe;
let callback: CallbackServer;
let browser: Browser;
let phone: AuthenticatorPage;

beforeAll(async () => {
  [server, callback, browser] = await Promise.all([
    startOAuthServe(),
    startCallbackServer(),
    launchChromium(),
  ]);
  phone = await openWithAuthenticator(browser, { width: 390, height: 844 });
}, 60_000);

afterAll(async () => {
  await phone?.context.close();
  await browser?.close();
  await callback?.close();
  await server?.close();
});

describe("the sign-in and consent pages on a 390 px phone", () => {
  it("keep 44 px controls with 16 px text, no sideways scroll, and a dark page in the dark", async () => {
    const registered = await fetch(`${server.issuer}/register`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ client_name: "Phone look", redirect_uris: [callback.url] }),
    });
    const clientId = ((await registered.json()) as { client_id: string }).client_id;
    const request = authorizeRequest(server.issuer, {
      clientId,
      redirectUri: callback.url,
      resource: server.mcpUrl,
    });
    const { page } = phone;
    await page.goto(request.url.href);
    await page.waitForSelector("body[data-ready=true]");
    await page.locator("[data-testid=enroll]").waitFor();
    await expectDecisionLook(page, "oauth-sign-in");

    await page.fill("[data-testid=enroll-code]", server.enrollmentCode);
    await page.click("[data-testid=enroll]");
    await page.locator("[data-testid=consent-approve]").waitFor();
    await expectDecisionLook(page, "oauth-consent");
  });
});
