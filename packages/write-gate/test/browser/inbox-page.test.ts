/**
 * The inbox page in real Chromium at 390×844 with a virtual passkey (ADR 0073): two environments,
 * two agents waiting on approvals, one on a question, one client on a lease, all listed; the set
 * of decisions is shown before the ceremony; one ceremony approves both approvals and the
 * simulator receives exactly one response for each; the question is answered with an option. And
 * the look every decision page keeps, here and on `/approve`: each visible control 44 px tall with
 * a 16 px font, nothing scrolls sideways, and a dark colour scheme gives a dark page.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type AuthenticatorPage,
  launchChromium,
  openWithAuthenticator,
} from "@t3-connector/test-support/chromium";
import { expectDecisionLook } from "@t3-connector/test-support/decision-look";
import { answerQuestionWithFirstOption, outcomeResults } from "@t3-connector/test-support/inbox-page-steps";
import { INBOX_ENVIRONMENTS, seedInboxWorld } from "@t3-connector/test-support/inbox-world";
import { type SimGate, startSimGate } from "@t3-connector/test-support/sim-gate";
import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { enrollThroughThePage, waitForMessage } from "./support/gate-page.js";

const PHONE = { width: 390, height: 844 };
const PAST = Date.now() - 30 * 60_000;

let browser: Browser;
let gate: SimGate | undefined;
let tab: AuthenticatorPage | undefined;
let oauthDir: string | undefined;

beforeAll(async () => {
  browser = await launchChromium();
}, 30_000);
afterAll(async () => {
  await browser?.close();
});
afterEach(async () => {
  await tab?.context.close();
  await gate?.close();
  if (oauthDir !== undefined) await rm(oauthDir, { recursive: true, force: true });
  tab = undefined;
  gate = undefined;
  oauthDir = undefined;
});

async function openInbox(): Promise<{ gate: SimGate; page: Page }> {
  oauthDir = await mkdtemp(join(tmpdir(), "t3c-inbox-look-"));
  const started = await startSimGate({
    environments: INBOX_ENVIRONMENTS,
    serve: true,
    inbox: true,
    remoteApprovalAtOwnOrigin: { oauthStateDir: oauthDir },
  });
  gate = started;
  await seedInboxWorld(started, PAST);
  tab = await openWithAuthenticator(browser, PHONE);
  const { page } = tab;
  await page.goto(`${started.origin}/`);
  await page.waitForSelector("body[data-ready=true]");
  await enrollThroughThePage(page, "Phone");
  await page.goto(`${started.origin}/inbox`);
  await page.waitForSelector("body[data-ready=true]");
  return { gate: started, page };
}

function responses(alias: string) {
  return (gate as SimGate).sim
    .environment(alias)
    .model.receivedCommands.filter((command) => command.type === "runtime-request.respond");
}

describe("the inbox on a 390 px phone", () => {
  it("lists all four, shows the set, approves both approvals in one ceremony and answers the question", async () => {
    const { page } = await openInbox();
    const items = page.locator("[data-testid=item]");
    // Waits in the page on the listing itself, not on a polling clock.
    await items.nth(3).waitFor({ state: "attached" });
    expect(await items.count()).toBe(4);
    expect(await page.locator("[data-testid=item][data-kind=approval]").count()).toBe(2);
    expect(await page.locator("[data-testid=item][data-kind=question]").count()).toBe(1);
    expect(await page.locator("[data-testid=item][data-kind=lease]").count()).toBe(1);
    // Grouped by machine and project; the command is in its own monospace block.
    expect(await page.locator("[data-testid=group] > h2").allTextContents()).toHaveLength(3);
    expect(await page.locator("[data-testid=command]").count()).toBe(2);

    for (const approval of await page.locator("[data-testid=item][data-kind=approval]").all()) {
      await approval.locator("[data-testid=choice-accept]").check();
    }
    // The set the ceremony will cover, shown before it.
    expect(await page.locator("[data-testid=set-item]").allTextContents()).toEqual([
      "Approve once: Deploy (alpha)",
      "Approve once: Run tests (beta)",
    ]);
    await expectDecisionLook(page, "inbox-set");
    await page.click("[data-testid=decide]");
    await waitForMessage(page, "Decided.");
    expect(await outcomeResults(page)).toEqual(["sent", "sent"]);
    expect(responses("alpha")).toHaveLength(1);
    expect(responses("beta")).toHaveLength(1);

    await page.locator("[data-testid=item][data-kind=approval]").first().waitFor({ state: "detached" });
    expect(await answerQuestionWithFirstOption(page)).toBe("sent");
    expect(responses("beta")).toHaveLength(2);
  });

  it("keeps the decision look on /approve too", async () => {
    const { gate: started, page } = await openInbox();
    const link = await started.desk.request({ actions: ["thread.pin"], purpose: "look at me on a phone" });
    await page.goto(`${started.origin}/approve?request=${link.requestId}`);
    await page.waitForSelector("body[data-ready=true]");
    await page.locator("#request:not([hidden])").waitFor();
    await expectDecisionLook(page, "approve-page");
  });
});
