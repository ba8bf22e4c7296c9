/**
 * Every dead end a person can reach on the gate's page says what happened and what to do next:
 * an expired, already used, denied, superseded, withdrawn or unknown request, and the page opened on
 * 127.0.0.1 (refused by the Host check, which still serves nothing else). Real Chromium.
 */

import type { SimGate } from "@t3-connector/test-support/sim-gate";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { REQUEST_TTL_MS } from "../../src/approval/index.js";
import { useGatePage, waitForMessage } from "./support/gate-page.js";

const PROJECTS = [{ id: "project-api", title: "API server", workspaceRoot: "/work/api" }];

let gate: SimGate;
const gatePage = useGatePage();

async function open(options: { enroll: boolean; fakeClock?: boolean }): Promise<Page> {
  const opened = await gatePage.open({
    projects: PROJECTS,
    // The page's clock is Playwright's, moved by the test together with the gate's injected clock.
    ...(options.fakeClock === true ? { fakeClock: true } : {}),
    ...(options.enroll ? { enrollAs: "test laptop" } : {}),
  });
  gate = opened.gate;
  return opened.page;
}

/** Waits for the dead-end notice with this code and answers its three lines. */
async function deadEnd(page: Page, code: string): Promise<{ title: string; what: string; next: string }> {
  await page.locator(`[data-testid=dead-end][data-code=${code}]`).waitFor();
  const text = async (id: string) => (await page.locator(`[data-testid=${id}]`).textContent()) ?? "";
  expect(await page.locator("#request").isHidden()).toBe(true);
  return {
    title: await text("dead-end-title"),
    what: await text("dead-end-what"),
    next: await text("dead-end-next"),
  };
}

describe("dead ends on the approval page", () => {
  it("says a request expired, once its countdown runs out, and that the client must ask again", async () => {
    const page = await open({ enroll: true, fakeClock: true });
    const link = await gate.desk.request({ actions: ["thread.pin"] });
    await page.goto(link.url);
    await page.locator("#request:not([hidden])").waitFor();
    expect(await page.locator("[data-testid=request-countdown]").textContent()).toBe("2:00");

    gate.clock.offsetMs += REQUEST_TTL_MS + 1000;
    await page.clock.runFor(REQUEST_TTL_MS + 1000);
    const words = await deadEnd(page, "request_expired");
    expect(words.title).toBe("This request expired");
    expect(words.what).toContain("nothing was granted");
    expect(words.next).toContain("request approval again");
    expect(gate.keeper.list()).toEqual([]);
  });

  it("says a request was already used when its link is opened again after the approval", async () => {
    const page = await open({ enroll: true });
    const link = await gate.desk.request({ actions: ["thread.pin"] });
    await page.goto(link.url);
    await page.locator("#request:not([hidden])").waitFor();
    await page.click("[data-testid=approve]");
    await waitForMessage(page, "Lease granted.");
    // The address bar no longer names the used request, so a reload shows the lease.
    expect(new URL(page.url()).search).toBe("");

    await page.goto(link.url);
    const words = await deadEnd(page, "request_used");
    expect(words.title).toBe("This request was already used");
    expect(words.next).toContain("revoke");
    expect(await page.locator("#lease").isVisible()).toBe(true);
  });

  it("denies with the Deny button, grants nothing, and says the link was denied when opened again", async () => {
    const page = await open({ enroll: true });
    const link = await gate.desk.request({ actions: ["thread.pin"] });
    await page.goto(link.url);
    await page.locator("#request:not([hidden])").waitFor();
    await page.click("[data-testid=deny]");
    await waitForMessage(page, "Request denied.");
    expect(gate.keeper.list()).toEqual([]);

    await page.goto(link.url);
    const words = await deadEnd(page, "request_denied");
    expect(words.what).toContain("Nothing was granted");
    expect(words.next).toContain("request approval again");
  });

  it("says a request was superseded when the same client asked again, and another client's stays open", async () => {
    const page = await open({ enroll: true });
    const bridge = "bridge-asks-twice";
    const older = await gate.desk.request({ actions: ["thread.pin"], bridge });
    const otherClient = await gate.desk.request({ actions: ["thread.pin"], bridge: "bridge-of-another" });
    const newer = await gate.desk.request({ actions: ["thread.title"], bridge });
    await page.goto(newer.url);
    await page.locator("#request:not([hidden])").waitFor();
    await page.click("[data-testid=approve]");
    await waitForMessage(page, "Lease granted.");
    // Several leases at once (ADR 0028): a lease opening does not end another client's request.
    expect(gate.desk.view(otherClient.requestId).requestId).toBe(otherClient.requestId);

    await page.goto(older.url);
    const words = await deadEnd(page, "request_superseded");
    expect(words.title).toBe("A newer request replaced this one");
    expect(words.next).toContain("newest request");
  });

  it("says the session that asked ended when its requests were withdrawn, on an open page and a fresh link", async () => {
    const page = await open({ enroll: true });
    const holderSecret = "s".repeat(43);
    const asked = await gate.desk.request({
      actions: ["thread.pin"],
      bridge: "url-session-ended",
      holderSecret,
    });
    const otherClient = await gate.desk.request({ actions: ["thread.pin"], bridge: "bridge-of-another" });
    await page.goto(asked.url);
    await page.locator("#request:not([hidden])").waitFor();
    expect(gate.desk.withdrawHeldBy(holderSecret)).toBe(1);
    // The page was opened before the withdrawal: Approve now lands on the dead end, granting nothing.
    await page.click("[data-testid=approve]");
    const words = await deadEnd(page, "request_withdrawn");
    expect(words.title).toBe("The session that asked ended");
    expect(words.what).toContain("nothing was granted");
    expect(gate.keeper.list()).toEqual([]);
    await page.goto(asked.url);
    expect((await deadEnd(page, "request_withdrawn")).title).toBe("The session that asked ended");
    expect(gate.desk.view(otherClient.requestId).requestId).toBe(otherClient.requestId);
  });

  it("says the gate does not know a request id it never made", async () => {
    const page = await open({ enroll: false });
    await page.goto(`${gate.origin}/?request=${"A".repeat(43)}`);
    const words = await deadEnd(page, "request_invalid");
    expect(words.title).toBe("The gate does not know this request");
    expect(words.next).toContain("request approval again");
  });

  it("on 127.0.0.1 answers 403 with one line naming the address to open, and nothing of the page", async () => {
    const page = await open({ enroll: false });
    for (const path of ["/", "/app.js", "/favicon.ico"]) {
      const response = await page.goto(`http://127.0.0.1:${gate.port}${path}`);
      expect(response?.status(), path).toBe(403);
      expect(response?.headers()["content-type"]).toBe("text/plain; charset=utf-8");
      expect((await response?.text())?.trim()).toBe(
        `The write gate answers only at http://localhost:${gate.port}/ - open that address.`,
      );
    }
  });

  it("serves its icon at /favicon.svg and /favicon.ico, linked from the page, with nothing failing on load", async () => {
    const page = await open({ enroll: false });
    const failures: string[] = [];
    page.on("response", (response) => {
      if (response.status() >= 400) failures.push(`${response.status()} ${response.url()}`);
    });
    page.on("console", (message) => {
      if (message.type() === "error") failures.push(message.text());
    });
    // Loaded again with the listeners on: everything the page fetches must succeed.
    await page.reload();
    await page.waitForSelector("body[data-ready=true]");
    expect(await page.locator("link[rel=icon]").getAttribute("href")).toBe("/favicon.svg");
    for (const path of ["/favicon.svg", "/favicon.ico"]) {
      const icon = await page.evaluate(async (path) => {
        const response = await fetch(path);
        return {
          status: response.status,
          type: response.headers.get("content-type"),
          body: await response.text(),
        };
      }, path);
      expect(icon.status, path).toBe(200);
      expect(icon.type).toBe("image/svg+xml");
      expect(icon.body).toMatch(/^<svg /);
    }
    expect(failures).toEqual([]);
  });
});
