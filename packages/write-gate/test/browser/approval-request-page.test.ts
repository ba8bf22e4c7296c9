/**
 * The approval request as a person sees it in real Chromium with a virtual passkey: the client's
 * purpose as its own words, only what was proposed ticked, nothing destructive ticked without a
 * proposal, actions by label in risk groups, a phone-width screen and a keyboard-only approval.
 * Screenshots of the request and of the open lease go to test-output/screenshots/.
 */

import {
  checkedIds,
  computedStyle,
  focused,
  pageWidth,
  screenshot,
  unlabelledCount,
} from "@t3-connector/test-support/chromium";
import type { SimGate } from "@t3-connector/test-support/sim-gate";
import {
  ACTION_IDS,
  actionLabel,
  DESTRUCTIVE_ACTIONS,
  FOLDER_NAMING_ACTIONS,
} from "@t3-connector/write-engine/actions";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { useGatePage, waitForMessage } from "./support/gate-page.js";

const PROJECTS = [
  { id: "project-api", title: "API server", workspaceRoot: "/work/api" },
  { id: "project-web", title: "Web client with a rather long name", workspaceRoot: "/work/web/app/front" },
];
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };

let gate: SimGate;
const gatePage = useGatePage();

/** A gate over one simulated environment, its page open in Chromium with a passkey enrolled. */
async function openEnrolled(viewport = DESKTOP): Promise<Page> {
  const opened = await gatePage.open({ projects: PROJECTS, viewport, enrollAs: "test laptop" });
  gate = opened.gate;
  return opened.page;
}

async function openRequest(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await page.waitForSelector("body[data-ready=true]");
  await page.locator("#request:not([hidden])").waitFor();
}

/** The ids of the ticked action checkboxes, in page order. */
function tickedActions(page: Page): Promise<string[]> {
  return checkedIds(page.locator("#request-scope input[data-kind=action]"));
}

function groupInputs(page: Page, group: string) {
  return page.locator(`[data-testid=group-alpha-${group}] input[data-kind=action]`);
}

describe("the approval request page", () => {
  it("shows the client's purpose as its own plain words, the client's name, and ticks only the proposed action", async () => {
    const page = await openEnrolled();
    const link = await gate.desk.request({
      purpose: "pin the <b>release</b> thread",
      actions: ["thread.pin"],
      client: { name: "claude-code", version: "2.1.0" },
    });
    await openRequest(page, link.url);

    expect(await page.locator("[data-testid=purpose]").textContent()).toBe("pin the <b>release</b> thread");
    expect(await page.locator("[data-testid=purpose] b").count()).toBe(0);
    expect(await page.locator("[data-testid=purpose-box] figcaption").textContent()).toContain(
      "client's own words",
    );
    expect(await page.locator("[data-testid=request-client]").textContent()).toContain("claude-code 2.1.0");
    expect(await page.locator("[data-testid=request-fingerprint]").textContent()).toBe(
      (await gate.desk.view(link.requestId)).scopeFingerprint,
    );
    expect(await page.locator("[data-testid=request-countdown]").textContent()).toMatch(/^[0-2]:\d\d$/);
    expect(await tickedActions(page)).toEqual(["thread.pin"]);
    // Shown by label and one line, with the id for comparing with what the client named.
    const pin = page.locator('label:has([data-testid="action-thread.pin"])');
    expect(await pin.locator(".action-label").textContent()).not.toBe("thread.pin");
    expect(await pin.locator(".action-line").textContent()).not.toBe("");
    await screenshot(page, "request");

    await page.click("[data-testid=approve]");
    await waitForMessage(page, "Lease granted.");
    expect(gate.keeper.list()[0]?.scope.environments[0]?.actions).toEqual(["thread.pin"]);
    await page.locator("#lease:not([hidden])").waitFor();
    expect(await page.locator("[data-testid=writes-table]").isHidden()).toBe(true);
    gate.keeper.recordWrite({
      leaseId: gate.keeper.list()[0]?.leaseId ?? "",
      at: new Date().toISOString(),
      environmentId: gate.sim.environment("alpha").environmentId,
      action: "thread.pin",
      operationId: "op-request-page-pin",
      state: "completed",
    });
    await page.locator("[data-testid=writes] tr", { hasText: "op-request-page-pin" }).waitFor();
    await screenshot(page, "lease");
  });

  it("with no proposal ticks every project and every action but the destructive and folder-naming ones, set apart in words and frame", async () => {
    const page = await openEnrolled();
    const link = await gate.desk.request({});
    await openRequest(page, link.url);

    const destructive = groupInputs(page, "destructive");
    expect(await destructive.count()).toBe(DESTRUCTIVE_ACTIONS.length);
    expect(DESTRUCTIVE_ACTIONS).toEqual(expect.arrayContaining(["thread.delete", "checkpoint.rollback"]));
    for (const input of await destructive.all()) expect(await input.isChecked()).toBe(false);
    expect((await tickedActions(page)).sort()).toEqual(
      ACTION_IDS.filter(
        (action) => !DESTRUCTIVE_ACTIONS.includes(action) && !FOLDER_NAMING_ACTIONS.includes(action),
      ).sort(),
    );
    expect(await page.locator("#request-scope input[data-kind=project]:checked").count()).toBe(2);

    // Not by colour alone: its own heading words and a dashed frame.
    const group = page.locator("[data-testid=group-alpha-destructive]");
    expect(await group.locator("legend").textContent()).toContain("cannot be undone");
    expect(await computedStyle(group, "borderTopStyle")).toBe("dashed");
    expect(
      await computedStyle(page.locator("[data-testid=group-alpha-organize]"), "borderTopStyle"),
    ).not.toBe("dashed");

    // Nothing ticked in it, so it starts folded, saying so.
    const fold = page.locator("[data-testid=fold-alpha-destructive]");
    expect(await fold.getAttribute("open")).toBeNull();
    const count = page.locator("[data-testid=count-alpha-destructive]");
    expect(await count.textContent()).toBe(`0 of ${DESTRUCTIVE_ACTIONS.length} ticked`);
    expect(await page.locator("[data-testid=fold-alpha-organize]").getAttribute("open")).not.toBeNull();
    expect(await page.locator("[data-testid=request-hint]").textContent()).toContain("proposed nothing");

    // Select all / none act on their own group only; what Select all ticks is unfolded.
    await page.click("[data-testid=all-alpha-destructive]");
    for (const input of await destructive.all()) expect(await input.isChecked()).toBe(true);
    expect(await fold.getAttribute("open")).not.toBeNull();
    expect(await count.textContent()).toBe(
      `${DESTRUCTIVE_ACTIONS.length} of ${DESTRUCTIVE_ACTIONS.length} ticked`,
    );
    await page.click("[data-testid=none-alpha-organize]");
    expect(await page.locator("[data-testid=group-alpha-organize] input:checked").count()).toBe(0);
    expect(await page.locator("[data-testid=group-alpha-run] input:not(:checked)").count()).toBe(0);
    await page.click("[data-testid=none-alpha-destructive]");
    await page.click("[data-testid=none-alpha-run]");
    // Nothing left to grant: the page says what to do instead of asking the gate.
    await page.click("[data-testid=approve]");
    await page
      .locator("[data-testid=decision-error]")
      .filter({ hasText: "Tick at least one action in alpha" })
      .waitFor();
    expect(gate.keeper.list()).toEqual([]);
  });

  it("fits a 390 px screen without sideways scrolling, for the request and for the open lease", async () => {
    const page = await openEnrolled(PHONE);
    const link = await gate.desk.request({
      purpose: "pin the release thread and give it a clear title so everyone finds it",
      actions: ["thread.pin", "thread.title"],
      client: { name: "claude-code", version: "2.1.0" },
    });
    await openRequest(page, link.url);
    const onRequest = await pageWidth(page);
    expect(onRequest.scrollWidth).toBeLessThanOrEqual(PHONE.width);
    expect(onRequest.overflow).toBe(0);
    await screenshot(page, "request");

    await page.click("[data-testid=approve]");
    await waitForMessage(page, "Lease granted.");
    const lease = gate.keeper.list()[0] ?? null;
    if (lease === null) throw new Error("no lease was granted");
    gate.keeper.recordWrite({
      leaseId: gate.keeper.list()[0]?.leaseId ?? "",
      at: new Date().toISOString(),
      environmentId: gate.sim.environment("alpha").environmentId,
      action: "thread.pin",
      operationId: "op-a-rather-long-operation-identifier-0001",
      state: "completed",
    });
    await page.reload();
    await page.waitForSelector("body[data-ready=true]");
    await page.locator("[data-testid=writes] tr").first().waitFor();
    // After the reload the lease is still named by the catalogue's labels, grouped by risk.
    expect(await page.locator("[data-testid=granted-alpha-organize]").textContent()).toBe(
      `Organize (2): ${actionLabel("thread.pin")}, ${actionLabel("thread.title")}`,
    );
    expect(await page.locator("[data-testid=granted-alpha-destructive]").count()).toBe(0);
    const onLease = await pageWidth(page);
    expect(onLease.scrollWidth).toBeLessThanOrEqual(PHONE.width);
    expect(onLease.overflow).toBe(0);
    await screenshot(page, "lease");
  });

  it("approves with the keyboard alone: every control is reachable, labelled and visibly focused", async () => {
    const page = await openEnrolled();
    const link = await gate.desk.request({ actions: ["thread.pin", "thread.archive"] });
    await openRequest(page, link.url);

    // Every checkbox has a label, and everything clickable is a real button.
    expect(await page.locator("input[type=checkbox]").count()).toBeGreaterThan(40);
    expect(await unlabelledCount(page.locator("input"))).toBe(0);
    expect(await page.locator("[onclick], [role=button], div[tabindex], span[tabindex]").count()).toBe(0);

    // Tab from the top until the archive checkbox has focus; Space unticks it.
    const focusedTestId = async () => (await focused(page)).testId;
    const tabTo = async (testId: string) => {
      for (let presses = 0; presses < 300; presses += 1) {
        await page.keyboard.press("Tab");
        if ((await focusedTestId()) === testId) return;
      }
      throw new Error(`${testId} was not reachable with Tab`);
    };
    await tabTo("action-thread.archive");
    expect((await focused(page)).outlineStyle).not.toBe("none");
    await page.keyboard.press("Space");
    expect(await tickedActions(page)).toEqual(["thread.pin"]);
    await tabTo("deny");
    await page.keyboard.press("Shift+Tab");
    expect(await focusedTestId()).toBe("approve");
    await page.keyboard.press("Enter");
    await waitForMessage(page, "Lease granted.");
    expect(gate.keeper.list()[0]?.scope.environments[0]?.actions).toEqual(["thread.pin"]);
    // Revoke is reachable too, once the page has read the gate again and shows the open lease.
    await page.locator("#lease:not([hidden])").waitFor();
    await tabTo("revoke");
    await page.keyboard.press("Enter");
    await waitForMessage(page, "Every lease revoked.");
    expect(gate.keeper.list()).toEqual([]);
  });
});
