/**
 * A thread's diff in the inbox in real Chromium at 390×844 (ADR 0068, "The person's diff page"):
 * from an inbox item, "What it changed" shows the file list, then each file's patch with its `@@`
 * hunk lines and old/new line numbers; a line longer than the phone scrolls inside its file's
 * block while the page itself never scrolls sideways; the added lines keep a dark background
 * under a dark scheme and a light one under a light scheme. A 2,000-file, 5 MB diff shows part of
 * its files and says how many; "Load more files" appends the next page by its cursor (no file
 * twice); "Whole thread" reads the thread's diff, whose totals are at least the run's.
 */
import { launchChromium, pageWidth } from "@t3-connector/test-support/chromium";
import { expectDecisionLook, measureLook } from "@t3-connector/test-support/decision-look";
import { INBOX_ENVIRONMENTS, seedDiffThread } from "@t3-connector/test-support/inbox-world";
import { type SimGate, startSimGate } from "@t3-connector/test-support/sim-gate";
import type { Browser, BrowserContext, Page } from "playwright-core";
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

/** The relative luminance of an element's computed background (0 black … 1 white). */
function luminance(page: Page, selector: string): Promise<number> {
  return page
    .locator(selector)
    .first()
    .evaluate((node) => {
      const win = globalThis as unknown as { getComputedStyle(node: unknown): { backgroundColor: string } };
      const colour = win.getComputedStyle(node).backgroundColor;
      const [r, g, b] = (colour.match(/\d+(\.\d+)?/g) ?? ["0", "0", "0"]).slice(0, 3).map(Number) as [
        number,
        number,
        number,
      ];
      const linear = (v: number) => {
        const c = v / 255;
        return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
      };
      return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
    });
}

describe("a thread's diff on a 390 px phone", () => {
  it("opens from its inbox item with hunks and line numbers, long lines scrolling inside their file", async () => {
    gate = await startSimGate({ environments: INBOX_ENVIRONMENTS, serve: true, inbox: true });
    const threadId = await seedDiffThread(gate, PAST);
    context = await browser.newContext({ viewport: PHONE });
    const page = await context.newPage();
    await page.goto(`${gate.origin}/inbox`);
    await page.waitForSelector("body[data-ready=true]");
    const item = page.locator("[data-testid=item]", { hasText: "Edit the config" });
    await item.waitFor();
    await item.locator("[data-testid=show-diff]").click();
    await item.locator("[data-testid=diff-file]").first().waitFor();

    // The file list first, then each file's patch.
    expect(await item.locator("[data-testid=diff-files] .path").allTextContents()).toEqual(
      expect.arrayContaining(["src/config.ts", "docs/notes.md"]),
    );
    const config = item.locator("[data-testid=diff-file]", { hasText: "src/config.ts" });
    const hunks = config.locator("[data-testid=diff-line][data-kind=hunk]");
    expect(await hunks.count()).toBeGreaterThan(0);
    expect(await hunks.first().textContent()).toContain("@@");
    const added = config.locator("[data-testid=diff-line][data-kind=add]").first();
    expect(await added.locator(".no").nth(1).textContent()).toMatch(/^\d+$/);
    expect(await item.getAttribute("id")).toBeTruthy();
    expect(threadId).toBe("t-edit");

    // The long line scrolls inside its file's block; the page never scrolls sideways.
    const patch = config.locator("[data-testid=patch]");
    const sizes = await patch.evaluate((node) => ({ scroll: node.scrollWidth, client: node.clientWidth }));
    expect(sizes.scroll).toBeGreaterThan(sizes.client);
    // `overflow`: how far the page itself scrolls sideways at this width.
    expect((await measureLook(page)).overflow).toBe(0);
    await expectDecisionLook(page, "inbox-diff");

    // The colours follow the scheme: an added line is light on light, dark on dark.
    const addedLine = "[data-testid=diff-line][data-kind=add]";
    await page.emulateMedia({ colorScheme: "light" });
    expect(await luminance(page, addedLine)).toBeGreaterThan(0.6);
    await page.emulateMedia({ colorScheme: "dark" });
    expect(await luminance(page, addedLine)).toBeLessThan(0.1);
  });

  it("pages a 2,000-file diff by its cursor, switches to the whole thread, and never widens the page", async () => {
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
