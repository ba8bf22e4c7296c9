/**
 * "Ask for approval" where a write session is connected (ADR 0064): a client signed in to
 * `serve --http` with `t3:read t3:write` (the real OAuth page, the real gate, ADR 0049) hosts the
 * board through ext-apps' AppBridge in Chromium. Pressing the button calls `t3_pedir_aprovacao`
 * through the host for a lease on that one thread and opens the approval page with
 * `ui/open-link`; the person approves it there with a passkey. Pressed again, the board follows its
 * own request instead of asking anew: an approved lease is reported, a denied request said, and
 * only the next press asks again. Nothing is written: no write tool is called and no command
 * reaches T3. A host that moves the `approvalUrl` to another origin gets no link opened.
 */
import { IDLE_THREAD, RUNNING_THREAD } from "@t3-connector/test-support/sim-world";
import type { FrameLocator } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { readToolDefinitions } from "../../src/tools/index.js";
import {
  approveOnGatePage,
  type SignedIn,
  signInByUrl,
  startUrlWritesLoop,
  type UrlWritesLoop,
} from "../http/support/url-writes-loop.js";
import { type BoardHost, openBoardHost } from "./support/apps-host.js";

const TITLE = "Board: approve the deploy";
const DENIED_TITLE = "Board: answer the question";
const PURPOSE = `Answer thread "${TITLE}" on beta, asked from the agents board`;
const READ_TOOLS = new Set(readToolDefinitions.map((definition) => definition.name));

let loop: UrlWritesLoop;
let writer: SignedIn;
let host: BoardHost | undefined;

beforeAll(async () => {
  loop = await startUrlWritesLoop();
  writer = await signInByUrl(loop, { scope: "t3:read t3:write", name: "board-host" });
  // The thread waits for a person on the machine serve reads, and the gate knows it by the same
  // id in the same environment alias, so a lease can name it.
  const demo = loop.serve.sim.environment("beta");
  const project = [...demo.model.store.projects.values()][0];
  if (project === undefined) throw new Error("the demo has no project");
  demo.model.addThread({ id: IDLE_THREAD, projectId: project.id, title: TITLE, state: "waiting_approval" });
  demo.model.addThread({
    id: RUNNING_THREAD,
    projectId: project.id,
    title: DENIED_TITLE,
    state: "waiting_approval",
  });
  expect(loop.gate.world.env("beta").model.store.threads.has(IDLE_THREAD)).toBe(true);
}, 120_000);

afterEach(async () => {
  await host?.close();
  host = undefined;
});

afterAll(async () => {
  await writer?.client.close();
  await loop?.close();
});

function approvalButton(view: FrameLocator, title = TITLE) {
  return view
    .locator("#needs-you li")
    .filter({ hasText: title })
    .locator("button", { hasText: /^Ask for approval$/ });
}

describe("ask for approval from the board, in a write session", () => {
  it("refuses an approvalUrl the host moved to another origin", async () => {
    host = await openBoardHost(loop.browser, writer.client, {
      toolName: "t3_control_plane",
      width: 390,
      rewriteResult: (name, result) =>
        name !== "t3_pedir_aprovacao"
          ? result
          : {
              ...result,
              structuredContent: {
                ...result.structuredContent,
                authorized: false,
                approvalUrl: "https://evil.example/approve?request=stolen",
              },
            },
    });
    const button = approvalButton(host.view);
    await button.waitFor();
    await button.focus();
    await host.page.keyboard.press("Enter");
    const notice = host.view.locator("#notice");
    await notice.filter({ hasText: "not on the approval page's origin http://localhost:" }).waitFor();
    expect(host.links).toEqual([]);
    expect(host.messages).toEqual([]);
  });

  it("asks the write tool for a lease on that thread and opens only the approval page; nothing is written", async () => {
    const commandsBefore = loop.gate.world.commandCount();
    host = await openBoardHost(loop.browser, writer.client, { toolName: "t3_control_plane", width: 390 });
    const { view, page } = host;
    const button = approvalButton(view);
    await button.waitFor();
    const widths = await view
      .locator("html")
      .evaluate((html) => ({ scroll: html.scrollWidth, client: html.clientWidth }));
    expect(widths.scroll).toBeLessThanOrEqual(widths.client);

    await button.focus();
    await page.keyboard.press("Enter");
    await host.linksReach(1);
    const [link] = host.links;
    expect(link).toMatch(new RegExp(`^http://localhost:${loop.gate.config.port}/\\?request=`));
    expect(host.messages).toEqual([]);
    expect(host.toolCalls.filter((name) => !READ_TOOLS.has(name))).toEqual(["t3_pedir_aprovacao"]);

    // A real request of this session, in the board's words: the person approves it with a passkey.
    await approveOnGatePage(loop.approval.page, link as string, PURPOSE);
    // Asked again, the session holds the lease now: no second request, no second link.
    await button.focus();
    await page.keyboard.press("Enter");
    await view.locator("#notice", { hasText: "already holds an open lease" }).waitFor();
    expect(host.links).toHaveLength(1);
    expect(host.toolCalls.filter((name) => !READ_TOOLS.has(name))).toEqual([
      "t3_pedir_aprovacao",
      "t3_pedir_aprovacao",
    ]);
    expect(loop.gate.world.commandCount()).toBe(commandsBefore);
  });

  it("says a request the person denied was denied, and asks anew only when pressed again", async () => {
    host = await openBoardHost(loop.browser, writer.client, { toolName: "t3_control_plane", width: 390 });
    const { view, page } = host;
    const button = approvalButton(view, DENIED_TITLE);
    await button.waitFor();
    await button.focus();
    await page.keyboard.press("Enter");
    await host.linksReach(1);
    const approval = loop.approval.page;
    await approval.goto(host.links[0] as string);
    await approval
      .locator("#request:not([hidden]) [data-testid=purpose]")
      .filter({ hasText: DENIED_TITLE })
      .waitFor();
    await approval.click("[data-testid=deny]");
    await approval.locator("[data-testid=message]").filter({ hasText: "Request denied." }).waitFor();

    await button.focus();
    await page.keyboard.press("Enter");
    await view
      .locator("#notice", { hasText: /^The request was denied: press again to ask anew\.$/ })
      .waitFor();
    expect(host.links).toHaveLength(1);
    await button.focus();
    await page.keyboard.press("Enter");
    await host.linksReach(2);
    expect(host.links[1]).not.toBe(host.links[0]);
  });
});
