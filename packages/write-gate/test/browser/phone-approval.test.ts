/**
 * The approval request on a phone (390×844) in real Chromium with a virtual passkey: one line by
 * the Approve button says what approving grants, Approve is on the first screen with the details
 * folded below it, action ids wrap only after a dot, and a failed passkey step is told in words
 * beside the button that was pressed, never as the browser library's error code.
 */

import { type AuthenticatorPage, screenshot } from "@t3-connector/test-support/chromium";
import type { SimGate } from "@t3-connector/test-support/sim-gate";
import { actionInfo } from "@t3-connector/write-engine/actions";
import type { Locator, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { useGatePage } from "./support/gate-page.js";

const PHONE = { width: 390, height: 844 };
const PROJECTS = [
  { id: "project-api", title: "API server", workspaceRoot: "/work/api" },
  { id: "project-web", title: "Web client", workspaceRoot: "/work/web" },
];
const THREADS = [{ id: "thread-release", projectId: "project-api", title: "Release notes" }];
/** The longest purpose a client may send (280 characters): the worst case above the buttons. */
const LONG_PURPOSE = "Pin the release thread and set it back to asking before every command. "
  .repeat(4)
  .slice(0, 280);

const gatePage = useGatePage();

async function openPhone(): Promise<{ gate: SimGate; tab: AuthenticatorPage; page: Page }> {
  return gatePage.open({ projects: PROJECTS, threads: THREADS, viewport: PHONE, enrollAs: "phone" });
}

async function openRequest(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await page.waitForSelector("body[data-ready=true]");
  await page.locator("#request:not([hidden])").waitFor();
}

const label = (action: string) => actionInfo(action).label;

/** How many line boxes each child of `target` takes: 1 means that part was not broken. */
function lineCounts(target: Locator): Promise<number[]> {
  return target.evaluate((node) =>
    [...node.querySelectorAll(":scope > span")].map((child) => child.getClientRects().length),
  );
}

describe("the approval request on a 390 px phone", () => {
  it("puts a one-line summary of the grant and the Approve button on the first screen, the details folded below", async () => {
    const { gate, page } = await openPhone();
    const link = await gate.desk.request({
      purpose: LONG_PURPOSE,
      actions: ["thread.pin", "thread.runtime-mode.set"],
      threads: ["thread-release"],
      client: { name: "claude-code", version: "2.1.0" },
    });
    await openRequest(page, link.url);

    const runtime = actionInfo("thread.runtime-mode.set");
    expect(actionInfo("thread.pin").group).toBe("organize");
    expect(runtime.group).toBe("run");
    expect(await page.locator("[data-testid=request-summary]").textContent()).toBe(
      `alpha — project API server; organize (${label("thread.pin")}), run control (${runtime.label}) · ` +
        "only the threads the client named: “Release notes” (alpha) · " +
        "agents at most approval-required: agents it starts on alpha ask in T3 before every command and file change.",
    );

    await page.evaluate(() =>
      (globalThis as unknown as { scrollTo(x: number, y: number): void }).scrollTo(0, 0),
    );
    await screenshot(page, "phone-request-first-screen");
    const approve = await page.locator("[data-testid=approve]").boundingBox();
    if (approve === null) throw new Error("Approve is not rendered");
    expect(approve.y).toBeGreaterThanOrEqual(0);
    expect(approve.y + approve.height).toBeLessThanOrEqual(PHONE.height);
    expect(await page.locator("[data-testid=request-details]").getAttribute("open")).toBeNull();
    const summaryBox = await page.locator("[data-testid=request-summary]").boundingBox();
    expect(summaryBox?.y ?? PHONE.height).toBeLessThan(approve.y);

    // The line follows the ticks: unfold, untick the pin, and it says so.
    await page.click("[data-testid=request-details] > summary");
    await page.click('[data-testid="action-thread.pin"]');
    expect(await page.locator("[data-testid=request-summary]").textContent()).toContain(
      `alpha — project API server; run control (${runtime.label}) · `,
    );
    await page.click("[data-testid=project-project-web]");
    expect(await page.locator("[data-testid=request-summary]").textContent()).toContain(
      "alpha — projects API server, Web client; ",
    );
    await page.click("[data-testid=none-alpha-run]");
    expect(await page.locator("[data-testid=request-summary]").textContent()).toContain("no action");
  });

  it("wraps an action id only after a dot: no part of thread.runtime-mode.set is broken, even in a narrow box", async () => {
    const { gate, page } = await openPhone();
    const link = await gate.desk.request({ actions: ["thread.runtime-mode.set"] });
    await openRequest(page, link.url);
    await page.click("[data-testid=request-details] > summary");
    const id = page.locator('label:has([data-testid="action-thread.runtime-mode.set"]) code.action-id');
    expect(await id.textContent()).toBe("thread.runtime-mode.set");
    expect(await lineCounts(id)).toEqual([1, 1, 1]);

    // Squeezed to a few characters, it breaks at the dots and nowhere else.
    await id.evaluate((node) => {
      const { style } = node as unknown as { style: { display: string; width: string } };
      style.display = "inline-block";
      style.width = "7ch";
    });
    expect(await id.evaluate((node) => node.getClientRects().length)).toBe(1);
    const parts = await id.evaluate((node) =>
      [...node.querySelectorAll(":scope > span")].map((child) => ({
        text: child.textContent,
        lines: child.getClientRects().length,
        top: Math.round(child.getBoundingClientRect().top),
      })),
    );
    expect(parts.map((part) => part.text)).toEqual(["thread.", "runtime-mode.", "set"]);
    expect(parts.every((part) => part.lines === 1)).toBe(true);
    expect(new Set(parts.map((part) => part.top)).size).toBe(3);
  });

  it("tells a failed passkey approval in words beside Approve, not as the library's error code", async () => {
    const { gate, tab, page } = await openPhone();
    const link = await gate.desk.request({ actions: ["thread.pin"] });
    await openRequest(page, link.url);
    // Another device: it holds no passkey for this gate, so the browser refuses (NotAllowedError).
    await tab.replaceAuthenticator();
    await page.click("[data-testid=approve]");
    const error = page.locator("[data-testid=decision-error]");
    await error.waitFor();
    const words = await error.textContent();
    expect(words).toMatch(/^Approval failed\. .*holds no passkey for this gate/);
    expect(words).toContain("gate --enroll");
    expect(await page.locator("body").textContent()).not.toContain("ERROR_");
    expect(await page.locator("[data-testid=message]").textContent()).not.toContain("failed");

    // Beside the button: just under it, in the same decision box.
    const approve = await page.locator("[data-testid=approve]").boundingBox();
    const box = await error.boundingBox();
    if (approve === null || box === null) throw new Error("not rendered");
    expect(box.y).toBeGreaterThanOrEqual(approve.y);
    expect(box.y - (approve.y + approve.height)).toBeLessThan(80);
    expect(gate.keeper.list()).toEqual([]);
  });

  it("tells a passkey that already lives on this device in words beside Add another passkey", async () => {
    const { page } = await openPhone();
    // The step-up passes with the enrolled passkey; the new one is refused by the same device
    // (InvalidStateError: the gate excludes the credentials it already has).
    await page.click("[data-testid=add-passkey]");
    const error = page.locator("[data-testid=add-passkey-error]");
    await error.waitFor();
    expect(await error.textContent()).toBe(
      "Registration failed. This device already holds a passkey for this gate: use that one, or register on another device or security key.",
    );
    expect(await page.locator("body").textContent()).not.toContain("ERROR_");
    const button = await page.locator("[data-testid=add-passkey]").boundingBox();
    const box = await error.boundingBox();
    if (button === null || box === null) throw new Error("not rendered");
    expect(box.y - (button.y + button.height)).toBeLessThan(80);
    expect(await page.locator("[data-testid=passkey]").count()).toBe(1);
  });

  it("tells a failed removal in words under the passkey it was for, and keeps the passkey", async () => {
    const { gate, tab, page } = await openPhone();
    // Removing needs an assertion; a device without this gate's passkey cannot give one.
    await tab.replaceAuthenticator();
    await page.click("[data-testid=passkey] button");
    const error = page.locator("[data-testid=passkey] [data-testid=remove-error]");
    await error.waitFor();
    expect(await error.textContent()).toMatch(/^Removal failed\. .*holds no passkey for this gate/);
    expect(await page.locator("body").textContent()).not.toContain("ERROR_");
    expect(gate.passkeys.list()).toHaveLength(1);
  });
});
