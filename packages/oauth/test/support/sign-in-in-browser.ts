/**
 * Drives the sign-in page the way a person does: enroll the first passkey with the terminal's
 * code when asked (which signs in as well), else sign in with the passkey, then click Allow or Deny.
 */
import type { Page } from "playwright-core";

export async function signInAndDecide(
  page: Page,
  authorizationUrl: URL,
  options: { enrollmentCode: string; decision: "approve" | "deny" },
): Promise<void> {
  await page.goto(authorizationUrl.href);
  await page.waitForSelector("body[data-ready=true]");
  if (await page.isVisible("[data-testid=enroll]")) {
    // The first time, creating the passkey signs in too: one ceremony, then consent.
    await page.fill("[data-testid=enroll-code]", options.enrollmentCode);
    await page.click("[data-testid=enroll]");
  } else {
    await page.click("[data-testid=sign-in]");
  }
  await page.click(`[data-testid=consent-${options.decision}]`);
  // The page leaves for the client's callback: wait until it got there, so the next sign-in's
  // navigation is never cut by this one.
  await page.waitForURL((url) => url.pathname === "/callback");
}
