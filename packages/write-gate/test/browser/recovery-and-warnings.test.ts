/**
 * The real gate (`startGate`, its own start-up check and enrollment code) with its page in
 * headless Chromium: a person who lost every passkey gets back in with `gate --enroll` and the
 * printed code, and an environment configured with the wrong environmentId is named on the page
 * with what to do, not only on the gate's terminal.
 */

import {
  type AuthenticatorPage,
  launchChromium,
  openWithAuthenticator,
} from "@t3-connector/test-support/chromium";
import { pageOrigin, type RealGate, startRealGate } from "@t3-connector/test-support/real-gate";
import { afterEach, describe, expect, it } from "vitest";
import { waitForMessage } from "./support/gate-page.js";

let browser: Awaited<ReturnType<typeof launchChromium>> | undefined;
let real: RealGate | undefined;
let tab: AuthenticatorPage | undefined;

afterEach(async () => {
  await tab?.context.close();
  await browser?.close();
  await real?.close();
  tab = undefined;
  browser = undefined;
  real = undefined;
});

async function openPage(gate: RealGate): Promise<AuthenticatorPage> {
  browser ??= await launchChromium();
  tab ??= await openWithAuthenticator(browser);
  await tab.page.goto(`${pageOrigin(gate.gate)}/`);
  await tab.page.waitForSelector("body[data-ready=true][data-live=true]");
  return tab;
}

describe("the real gate's page", () => {
  it("under `gate --enroll` shows the code field although a passkey exists, so a lost passkey is replaced with the printed code", async () => {
    real = await startRealGate();
    const { page } = await openPage(real);
    await page.fill("[data-testid=passkey-name]", "old laptop");
    await page.fill("[data-testid=enroll-code]", real.enrollmentCode);
    await page.click("[data-testid=enroll-submit]");
    await waitForMessage(page, "Passkey registered.");
    // Enrolled and started without --enroll: no code field, only "Add another" (needs the old passkey).
    await page.locator("[data-testid=add-passkey]:visible").waitFor();
    expect(await page.locator("[data-testid=enroll-code]").isVisible()).toBe(false);

    // The laptop is lost: a new device, and the gate restarted with --enroll prints a new code.
    const firstCode = real.enrollmentCode;
    await tab?.replaceAuthenticator();
    await real.restart({ enroll: true });
    const printed = real.enrollmentCode;
    expect(printed).not.toBe(firstCode);
    await openPage(real);
    await page.locator("[data-testid=enroll-code]:visible").waitFor();
    expect(await page.locator("#enroll-hint").textContent()).toContain("Lost your passkey?");
    expect(await page.locator("[data-testid=enroll-submit]").textContent()).toBe(
      "Register a new passkey with the code",
    );
    await page.fill("[data-testid=passkey-name]", "new phone");
    await page.fill("[data-testid=enroll-code]", printed);
    await page.click("[data-testid=enroll-submit]");
    await waitForMessage(page, "Passkey registered.");
    await page.locator("[data-testid=passkey]", { hasText: "new phone" }).waitFor();
    expect((await tab?.credentials())?.length).toBe(1);
    // The code served once: the field goes away again.
    await page.locator("[data-testid=enroll-code]").waitFor({ state: "hidden" });

    // The new passkey approves: a request from the relay, approved on the page.
    const asked = await real.relay({ op: "request_approval", actions: ["thread.pin"] });
    const url = (asked.body as { url?: string }).url;
    if (url === undefined) throw new Error(`no approval link: ${JSON.stringify(asked.body)}`);
    await page.goto(url);
    await page.locator("#request:not([hidden])").waitFor();
    await page.click("[data-testid=approve]");
    await waitForMessage(page, "Lease granted.");
    expect(real.gate.lease.list()).toHaveLength(1);
  });

  it("names an environment configured with the wrong environmentId in a banner, with what to do", async () => {
    real = await startRealGate({ wrongEnvironmentId: { beta: "env-not-this-one" } });
    const found = await real.gate.environmentWarnings;
    expect(found.map((warning) => [warning.alias, warning.code])).toEqual([["beta", "environment_mismatch"]]);
    const { page } = await openPage(real);
    const banner = page.locator("[data-testid=warnings]");
    await banner.waitFor();
    const item = banner.locator("[data-testid=warning-beta]");
    expect(await item.getAttribute("data-code")).toBe("environment_mismatch");
    const words = await item.textContent();
    expect(words).toContain("beta: writes there will fail.");
    expect(words).toContain("env-not-this-one");
    expect(words).toContain(`Set the environmentId of "beta" in the gate's config`);
    expect(await banner.locator("li").count()).toBe(1);
  });
});
