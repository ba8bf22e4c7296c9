/**
 * The change summary on the approval pages in real Chromium at 390×844 (ADR 0068, "On the approval
 * pages"): each thread a request names shows what its latest finished run changed, on the gate's
 * own page and on `/approve` from afar (counts only there, no file names); the open lease lists its
 * threads with theirs after the approval. A T3 that fails the read shows "changes unknown" and the
 * approval still goes through. A thread title made of markup shows as text.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type AuthenticatorPage,
  launchChromium,
  openWithAuthenticator,
  pageWidth,
} from "@t3-connector/test-support/chromium";
import { type SimGate, startSimGate } from "@t3-connector/test-support/sim-gate";
import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { enrollThroughThePage } from "./support/gate-page.js";

const PHONE = { width: 390, height: 844 };
const PAST = Date.now() - 30 * 60_000;
/** A title that would run script if the page ever set it as HTML. */
const EVIL = `<img src=x onerror="document.body.dataset.owned='yes'"><b>bold</b>`;
const CHANGED = /^\d+ files? changed, \+\d+ -\d+$/;

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

/** A gate serving `/approve` at its own origin, three threads in alpha, the page open and enrolled. */
async function openGate(): Promise<{ gate: SimGate; page: Page }> {
  oauthDir = await mkdtemp(join(tmpdir(), "t3c-changes-"));
  gate = await startSimGate({
    environments: [{ alias: "alpha", projects: [{ id: "p-api", title: "API", workspaceRoot: "/work/api" }] }],
    serve: true,
    remoteApprovalAtOwnOrigin: { oauthStateDir: oauthDir },
  });
  const alpha = gate.sim.environment("alpha").model;
  alpha.addThread({
    id: "t-edit",
    projectId: "p-api",
    title: "Edit the config",
    state: "completed",
    message: "[[sim:edit=src/config.ts|export const port = 8080;]] [[sim:edit=docs/notes.md|a note]]",
    at: PAST,
  });
  alpha.addThread({
    id: "t-evil",
    projectId: "p-api",
    title: EVIL,
    state: "completed",
    message: "[[sim:edit=src/evil.ts|export const x = 1;]]",
    at: PAST,
  });
  alpha.addThread({ id: "t-idle", projectId: "p-api", title: "Not started", at: PAST });
  tab = await openWithAuthenticator(browser, PHONE);
  await tab.page.goto(`${gate.origin}/`);
  await tab.page.waitForSelector("body[data-ready=true]");
  await enrollThroughThePage(tab.page, "Phone");
  return { gate, page: tab.page };
}

async function ask(started: SimGate, threads: string[]): Promise<string> {
  const link = await started.desk.request({ actions: ["thread.pin"], threads, purpose: "pin the threads" });
  return link.requestId;
}

function line(page: Page, testId: string) {
  return page.locator(`[data-testid="${testId}"]:not([data-state=reading])`);
}

describe("the change summary on the approval pages at 390 px", () => {
  it("shows each named thread's summary on the gate's page, after approval on the lease, and counts only from afar", async () => {
    const { gate: started, page } = await openGate();
    const requestId = await ask(started, ["t-edit", "t-evil", "t-idle"]);
    await page.goto(`${started.origin}/?request=${requestId}`);
    await page.locator("#request:not([hidden])").waitFor();

    expect(await line(page, "changes-alpha-t-edit").textContent()).toMatch(/^2 files changed, \+\d+ -\d+$/);
    expect(await line(page, "changes-alpha-t-evil").textContent()).toMatch(/^1 file changed, \+1 -0$/);
    expect(await line(page, "changes-alpha-t-idle").textContent()).toBe("no changes yet");
    expect(await page.locator("[data-testid=named-threads]").textContent()).toContain(
      "what its latest finished run changed",
    );
    // The hostile title is text: no element came from it, no script ran.
    expect(await page.locator("[data-testid=named-thread-alpha-t-evil]").textContent()).toBe(
      `“${EVIL}” in alpha`,
    );
    expect(await page.locator("[data-testid=named-threads] img, [data-testid=named-threads] b").count()).toBe(
      0,
    );
    expect(await page.locator("body").getAttribute("data-owned")).toBeNull();
    expect((await pageWidth(page)).overflow).toBe(0);

    await page.click("[data-testid=approve]");
    const card = page.locator("[data-testid=open-lease]");
    await card.waitFor();
    expect(await line(page, "lease-changes-alpha-t-edit").textContent()).toMatch(CHANGED);
    expect((await pageWidth(page)).overflow).toBe(0);

    // From afar, with the link alone: the same threads by title, counts only, never a file name.
    const remote = await ask(started, ["t-edit", "t-evil"]);
    await page.goto(`${started.origin}/approve?request=${remote}`);
    await page.waitForSelector("body[data-ready=true]");
    const named = page.locator("[data-testid=named-thread]");
    await expect.poll(() => named.count()).toBe(2);
    const changes = page.locator(
      "[data-testid=named-thread] [data-testid=changes]:not([data-state=reading])",
    );
    await expect.poll(() => changes.count()).toBe(2);
    expect(await named.first().textContent()).toMatch(
      /^“Edit the config” in alpha — 2 files changed, \+\d+ -\d+$/,
    );
    expect(await named.nth(1).textContent()).toBe(`“${EVIL}” in alpha — 1 file changed, +1 -0`);
    expect(await page.locator("[data-testid=named-threads] img, [data-testid=named-threads] b").count()).toBe(
      0,
    );
    expect(await page.locator("body").getAttribute("data-owned")).toBeNull();
    expect(await page.locator("[data-testid=changes-words]").textContent()).toContain(
      "Which files, and the diff itself",
    );
    const body = (await page.locator("body").textContent()) ?? "";
    expect(body).not.toContain("config.ts");
    expect(body).not.toContain("evil.ts");
    expect((await pageWidth(page)).overflow).toBe(0);
  }, 90_000);

  it("says 'changes unknown' when T3 fails the read, from afar and on the gate's page, and the approval still goes through", async () => {
    const { gate: started, page } = await openGate();
    const requestId = await ask(started, ["t-edit"]);
    started.sim.environment("alpha").faults.set({ httpStatus: 500 });

    await page.goto(`${started.origin}/approve?request=${requestId}`);
    await page.waitForSelector("body[data-ready=true]");
    const remote = page.locator("[data-testid=named-thread] [data-testid=changes]:not([data-state=reading])");
    await remote.waitFor();
    expect(await remote.textContent()).toBe("changes unknown");

    await page.goto(`${started.origin}/?request=${requestId}`);
    await page.locator("#request:not([hidden])").waitFor();
    expect(await line(page, "changes-alpha-t-edit").textContent()).toBe("changes unknown");
    await page.click("[data-testid=approve]");
    const card = page.locator("[data-testid=open-lease]");
    await card.waitFor();
    expect(started.keeper.list()).toHaveLength(1);
    expect(await line(page, "lease-changes-alpha-t-edit").textContent()).toBe("changes unknown");
  }, 90_000);
});
