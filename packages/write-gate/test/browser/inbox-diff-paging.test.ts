/**
 * A 2,000-file, 5 MB diff in the inbox in real Chromium at 390×844 (ADR 0068, "The person's diff
 * page"): the first page shows part of the files and says how many; "Load more files" appends the
 * next page by its cursor (no file twice); "Whole thread" reads the thread's diff, whose totals
 * are at least the run's; and the page itself never scrolls sideways.
 */
import { launchChromium, pageWidth } from "@t3-connector/test-support/chromium";
import { INBOX_ENVIRONMENTS, seedDiffThread } from "@t3-connector/test-support/inbox-world";
import { type SimGate, startSimGate } from "@t3-connector/test-support/sim-gate";
import type { Browser, BrowserContext } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";

const PHONE = { width: 390, height: 844 };
const PAST = Date.now() - 30 * 60_000;
const FILES = 2000;
const BULK = { threadId: "t-bulk", title: "Generate a lot", edits: `[[sim:bulk=${FILES}|2600]]` };

let browser: Browser;
let gate: SimGate | undefined;
let context: BrowserContext | undefined;

beforeAll(async () => {
  browser = await launchChromium();
}, 30_000);
afterAll(async () => {
  await browser?.close();
});
afterEach(async () => {
  await context?.close();
  await gate?.close();
  context = undefined;
  gate = undefined;
});

describe("a 2,000-file diff on a 390 px phone", () => {
  it("loads a second page by its cursor, switches to the whole thread, and never widens the page", async () => {
    gate = await startSimGate({ environments: INBOX_ENVIRONMENTS, serve: true, inbox: true });
    await seedDiffThread(gate, PAST, BULK);
    context = await browser.newContext({ viewport: PHONE });
    const page = await context.newPage();
    await page.goto(`${gate.origin}/inbox`);
    await page.waitForSelector("body[data-ready=true]");
    const item = page.locator("[data-testid=item]", { hasText: BULK.title });
    await item.waitFor();
    await item.locator("[data-testid=show-diff]").click();
    await item.locator("[data-testid=diff-file]").first().waitFor();

    const rows = item.locator("[data-testid=diff-files] li");
    const first = await rows.count();
    expect(first).toBeGreaterThan(0);
    expect(first).toBeLessThan(FILES);
    expect(await item.locator("[data-testid=diff-totals]").textContent()).toMatch(
      new RegExp(`^${FILES} files changed, \\+\\d+ −\\d+ \\(latest run\\)$`),
    );
    expect(await item.locator("[data-testid=diff-shown]").textContent()).toBe(
      `${first} of ${FILES} files shown.`,
    );
    expect((await pageWidth(page)).overflow).toBe(0);

    const more = item.locator("[data-testid=more-files]");
    await more.click();
    await expect.poll(() => rows.count()).toBeGreaterThan(first);
    const second = await rows.count();
    expect(await item.locator("[data-testid=diff-file]").count()).toBe(second);
    const paths = await item.locator("[data-testid=diff-files] .path").allTextContents();
    expect(new Set(paths).size).toBe(second);
    expect(await item.locator("[data-testid=diff-shown]").textContent()).toBe(
      `${second} of ${FILES} files shown.`,
    );
    expect((await pageWidth(page)).overflow).toBe(0);

    await item.locator("[data-testid=scope-thread]").click();
    const totals = item.locator("[data-testid=diff-totals]", { hasText: "(whole thread)" });
    await totals.waitFor();
    const [files] = ((await totals.textContent()) ?? "").split(" ");
    expect(Number(files)).toBeGreaterThanOrEqual(FILES);
    expect(await item.locator("[data-testid=scope-thread]").getAttribute("aria-pressed")).toBe("true");
    expect(await rows.count()).toBeLessThan(second);
    expect((await pageWidth(page)).overflow).toBe(0);
  }, 120_000);
});
