/**
 * An already open gate page follows the gate without a reload (GET /api/events nudges it to read
 * POST /api/state again): a new request comes up with the tab title counting it, writes under the
 * open lease appear as they happen, and a closed lease stays listed with its writes. Desktop
 * notifications are asked for only when the person presses the button. Real Chromium.
 */
import { EventEmitter, once } from "node:events";
import { type AuthenticatorPage, waitForTitle } from "@t3-connector/test-support/chromium";
import type { SimGate } from "@t3-connector/test-support/sim-gate";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { useGatePage, waitForMessage } from "./support/gate-page.js";

const PROJECTS = [{ id: "project-api", title: "API server", workspaceRoot: "/work/api" }];
const IDLE_TITLE = "t3-connector — write gate";

let gate: SimGate;
let tab: AuthenticatorPage;
const gatePage = useGatePage();

/** The page at `/`, a passkey enrolled, and its event stream connected. */
async function openLive(): Promise<Page> {
  const opened = await gatePage.open({
    projects: PROJECTS,
    enrollAs: "test laptop",
    // Counts permission prompts and records each notification, so the test can tell the page never
    // asks on its own and notifies only after the person opted in.
    beforeLoad: (page) =>
      page.addInitScript({
        content: `
      globalThis.permissionAsks = 0;
      globalThis.notes = [];
      const Original = Notification;
      const ask = Original.requestPermission.bind(Original);
      function Spy(title, options) {
        globalThis.notes.push({ title, body: options && options.body });
        return new Original(title, options);
      }
      Object.defineProperty(Spy, "permission", { get: () => Original.permission });
      Spy.requestPermission = () => {
        globalThis.permissionAsks += 1;
        return ask();
      };
      globalThis.Notification = Spy;`,
      }),
  });
  ({ gate, tab } = opened);
  await opened.page.waitForSelector("body[data-live=true]");
  return opened.page;
}

type Note = { title: string; body?: string };
function notes(page: Page): Promise<Note[]> {
  return page.evaluate(() => (globalThis as unknown as { notes: Note[] }).notes);
}

describe("the open gate page follows the gate live", () => {
  it("shows a request made after the page opened, without a reload, and counts it in the tab title", async () => {
    const page = await openLive();
    expect(await page.title()).toBe(IDLE_TITLE);
    let reloads = 0;
    page.on("load", () => {
      reloads += 1;
    });

    await gate.desk.request({ purpose: "tidy the release threads", actions: ["thread.pin"] });
    await page.locator("[data-testid=purpose]").filter({ hasText: "tidy the release threads" }).waitFor();
    await waitForTitle(page, "(1) Approval waiting — t3-connector");
    expect(reloads).toBe(0);

    // A second one while the first is on screen is listed, with a link, and counted.
    await gate.desk.request({ purpose: "answer the pending question", actions: ["runtime-request.answer"] });
    await page
      .locator("[data-testid=pending-request]")
      .filter({ hasText: "answer the pending question" })
      .waitFor();
    await waitForTitle(page, "(2) Approval waiting — t3-connector");

    await page.click("[data-testid=approve]");
    await waitForMessage(page, "Lease granted.");
    expect(reloads).toBe(0);
  });

  it("lists writes under the open lease as they happen, and keeps them under Recent leases after revoke", async () => {
    const page = await openLive();
    const link = await gate.desk.request({ actions: ["thread.pin"] });
    await page.locator("#request:not([hidden])").waitFor();
    expect(new URL(page.url()).searchParams.get("request")).toBe(link.requestId);
    await page.click("[data-testid=approve]");
    await waitForMessage(page, "Lease granted.");
    await page.locator("#lease:not([hidden])").waitFor();

    gate.keeper.recordWrite({
      leaseId: gate.keeper.list()[0]?.leaseId ?? "",
      at: new Date().toISOString(),
      environmentId: gate.sim.environment("alpha").environmentId,
      action: "thread.pin",
      operationId: "op-live-1",
      state: "completed",
    });
    const row = page.locator("[data-testid=writes] tr", { hasText: "op-live-1" });
    await row.waitFor();
    expect(await row.textContent()).toContain("alpha");
    expect(await row.textContent()).toContain("completed");

    await page.click("[data-testid=revoke]");
    await waitForMessage(page, "Every lease revoked.");
    await page.locator("#lease[hidden]").waitFor({ state: "attached" });
    const history = page.locator("[data-testid=history-lease]").first();
    await history.waitFor();
    expect(await history.textContent()).toContain("revoked");
    expect(await history.locator("[data-testid=history-writes]").textContent()).toContain("op-live-1");
  });

  it("answers a burst of 200 writes with a few spaced state reads, so Revoke still gets through", async () => {
    const page = await openLive();
    await gate.desk.request({ actions: ["thread.pin"] });
    await page.locator("#request:not([hidden])").waitFor();
    await page.click("[data-testid=approve]");
    await waitForMessage(page, "Lease granted.");
    await page.locator("#lease:not([hidden])").waitFor();

    const stateReads: number[] = [];
    page.on("request", (request) => {
      if (request.url().endsWith("/api/state")) stateReads.push(performance.now());
    });
    const environmentId = gate.sim.environment("alpha").environmentId;
    for (let index = 0; index < 200; index += 1) {
      gate.keeper.recordWrite({
        leaseId: gate.keeper.list()[0]?.leaseId ?? "",
        at: new Date().toISOString(),
        environmentId,
        action: "thread.pin",
        operationId: `op-burst-${index}`,
        state: "completed",
      });
    }
    await page.locator("[data-testid=writes] tr", { hasText: "op-burst-199" }).waitFor();
    // 200 nudges, a handful of reads, never two closer than the page's spacing (less a timer's slack).
    expect(stateReads.length).toBeGreaterThanOrEqual(1);
    expect(stateReads.length).toBeLessThanOrEqual(3);
    for (let index = 1; index < stateReads.length; index += 1) {
      expect((stateReads[index] ?? 0) - (stateReads[index - 1] ?? 0)).toBeGreaterThan(1400);
    }
    await page.click("[data-testid=revoke]");
    await waitForMessage(page, "Every lease revoked.");
    expect(gate.keeper.list()).toEqual([]);
  });

  it("shows the lease at once after Approve, even while a nudge of the gate waits out the page's spacing", async () => {
    // The page's clock is Playwright's, paused below: a read the page spaces out never starts by
    // itself, so only a read that starts at once can put the lease on screen. Each event the page
    // gets from the gate is reported to the test after the page has handled it.
    const nudges = new EventEmitter();
    const opened = await gatePage.open({
      projects: PROJECTS,
      enrollAs: "test laptop",
      fakeClock: true,
      beforeLoad: async (page) => {
        await page.exposeBinding("nudged", (_source, name: string) => nudges.emit(name));
        await page.addInitScript({
          content: `
      const add = EventSource.prototype.addEventListener;
      EventSource.prototype.addEventListener = function (type, listener, options) {
        return add.call(this, type, function (event) {
          listener.call(this, event);
          window.nudged(type);
        }, options);
      };`,
        });
      },
    });
    gate = opened.gate;
    const { page } = opened;
    await page.waitForSelector("body[data-live=true]");
    await gate.desk.request({ actions: ["thread.pin"], bridge: "bridge-approved" });
    const pin = page.locator('[data-testid="action-thread.pin"]');
    await pin.waitFor();
    // Paused a little ahead of the page's clock: the page's time runs on between this read and
    // the pause, and a time already past is refused ("Cannot fast-forward to the past").
    await page.clock.pauseAt((await page.evaluate(() => Date.now())) + 2_000);

    // Approve with nothing ticked asks for a tick and reads the gate at once: the page's last read
    // is now at the paused time, so the next nudge waits out the full spacing.
    await pin.uncheck();
    const read = page.waitForResponse((response) => response.url().endsWith("/api/state"));
    await page.click("[data-testid=approve]");
    await page
      .locator("[data-testid=decision-error]")
      .filter({ hasText: "Tick at least one action" })
      .waitFor();
    await read;
    const nudged = once(nudges, "request");
    await gate.desk.request({
      purpose: "another client's request",
      actions: ["thread.title"],
      bridge: "bridge-waiting",
    });
    await nudged;

    await pin.check();
    await page.click("[data-testid=approve]");
    await waitForMessage(page, "Lease granted.");
    await page.locator("#lease:not([hidden])").waitFor();
    // The read that started at once answered the waiting nudge too: the other request comes up.
    await page.locator("[data-testid=purpose]").filter({ hasText: "another client's request" }).waitFor();
    expect(gate.keeper.list()[0]?.scope.environments[0]?.actions).toEqual(["thread.pin"]);
  });

  it("asks for desktop notifications only when the button is pressed, and then notifies of the next request", async () => {
    const page = await openLive();
    await gate.desk.request({ purpose: "pin it", actions: ["thread.pin"] });
    await waitForTitle(page, "(1) Approval waiting — t3-connector");
    expect(
      await page.evaluate(() => (globalThis as unknown as { permissionAsks: number }).permissionAsks),
    ).toBe(0);

    await tab.context.grantPermissions(["notifications"], { origin: gate.origin });
    await page.click("[data-testid=notify]");
    await waitForMessage(page, "Desktop notifications are on.");
    expect(
      await page.evaluate(() => (globalThis as unknown as { permissionAsks: number }).permissionAsks),
    ).toBe(1);
    expect(await page.locator("[data-testid=notify]").isHidden()).toBe(true);
    expect(await notes(page)).toEqual([]);

    // Opted in: the next request that arrives makes one notification, with the client's purpose.
    await gate.desk.request({ purpose: "rename it", actions: ["thread.title"] });
    await waitForTitle(page, "(2) Approval waiting — t3-connector");
    expect(await notes(page)).toEqual([{ title: "Approval waiting — t3-connector", body: "rename it" }]);
  });
});
