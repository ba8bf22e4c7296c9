/**
 * Acting from the board without a write session (ADR 0064), in real Chromium through ext-apps'
 * AppBridge: "Open in T3" opens T3's own page for the thread — only where the server's facts
 * name that environment's web origin (alpha, protocol 2) — and a transitional server's row says
 * where to answer instead (beta). Without the write tool in the session, the approval button asks
 * the model and calls no write tool. A host that forges the facts with a script or a path for an
 * origin gets no link out of the view.
 */
import { type SimReadSetup, startSimRead } from "@t3-connector/test-support/sim-context";
import type { Browser, FrameLocator } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { BOARD_FACTS_META_KEY } from "../../src/board/board-facts.js";
import { readToolDefinitions } from "../../src/tools/index.js";
import { ALPHA_ID, BETA_ID } from "../tools/listing-support.js";
import { type BoardHost, launchChromium, openBoardHost } from "./support/apps-host.js";

let browser: Browser;
let setup: SimReadSetup;
let host: BoardHost | undefined;

beforeAll(async () => {
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
});

beforeEach(async () => {
  setup = await startSimRead({
    simulator: {
      environments: [
        { alias: "alpha", environmentId: ALPHA_ID, label: "Alpha laptop", seed: "demo" },
        { alias: "beta", environmentId: BETA_ID, label: "Beta server", seed: "demo", transitional: true },
      ],
    },
    definitions: readToolDefinitions,
  });
});

afterEach(async () => {
  await host?.close();
  host = undefined;
  await setup.close();
});

function needsYou(view: FrameLocator, machine: string) {
  return view.locator("#needs-you li").filter({ hasText: machine });
}

const READ_TOOLS = new Set(readToolDefinitions.map((definition) => definition.name));

describe("acting from the board without a write session", () => {
  it("opens T3's own page for a thread where the web origin is known, and says where to answer elsewhere", async () => {
    host = await openBoardHost(browser, setup.client, { toolName: "t3_control_plane", width: 390 });
    const { view, page } = host;
    const alphaRow = needsYou(view, "Alpha laptop").first();
    const open = alphaRow.locator("button", { hasText: "Open in T3" });
    await open.waitFor();
    const betaRows = needsYou(view, "Beta server");
    await betaRows.first().waitFor();
    await expect(betaRows.locator("button", { hasText: "Open in T3" }).count()).resolves.toBe(0);
    await expect(betaRows.first().locator(".hint").textContent()).resolves.toBe(
      "Answer in T3 on Beta server",
    );

    // By keyboard: the button is focused and pressed with Enter, as a person without a mouse would.
    await open.focus();
    await page.keyboard.press("Enter");
    await host.linksReach(1);
    expect(host.links).toHaveLength(1);
    const key = (await alphaRow.getAttribute("data-key")) ?? "";
    const threadId = key.slice(`${ALPHA_ID}/`.length);
    const alphaOrigin = new URL(setup.sim.environment("alpha").url).origin;
    expect(host.links).toEqual([`${alphaOrigin}/${ALPHA_ID}/${encodeURIComponent(threadId)}`]);
    expect(host.messages).toEqual([]);
    const widths = await view
      .locator("html")
      .evaluate((html) => ({ scroll: html.scrollWidth, client: html.clientWidth }));
    expect(widths.scroll).toBeLessThanOrEqual(widths.client);
  });

  it("asks the model for approval when the session has no write tool, and calls none", async () => {
    host = await openBoardHost(browser, setup.client, { toolName: "t3_control_plane", width: 390 });
    const { view, page } = host;
    const ask = needsYou(view, "Alpha laptop")
      .locator("button", { hasText: "Ask the model for approval" })
      .first();
    await ask.waitFor();
    await expect(view.locator("button", { hasText: /^Ask for approval$/ }).count()).resolves.toBe(0);
    await ask.focus();
    await page.keyboard.press("Enter");
    await host.messagesReach(1);
    expect(host.messages).toHaveLength(1);
    expect(host.messages[0]?.content[0]?.text).toContain("t3_pedir_aprovacao");
    expect(host.links).toEqual([]);
    expect(host.toolCalls.every((name) => READ_TOOLS.has(name))).toBe(true);
  });

  it("drops forged facts that name a script or a path as T3's origin", async () => {
    host = await openBoardHost(browser, setup.client, {
      toolName: "t3_control_plane",
      width: 390,
      rewriteResult: (name, result) =>
        name !== "t3_control_plane"
          ? result
          : {
              ...result,
              _meta: {
                [BOARD_FACTS_META_KEY]: {
                  approvalOrigin: "javascript:alert(1)",
                  t3Origins: { [ALPHA_ID]: "javascript:alert(1)", [BETA_ID]: "https://evil.example/steal" },
                },
              },
            },
    });
    const { view } = host;
    // The board's own refresh (the forged one) replaces the host's first result.
    await view.locator("body[data-refreshes]:not([data-refreshes='0'])").waitFor();
    await needsYou(view, "Alpha laptop").first().waitFor();
    await expect(view.locator("button", { hasText: "Open in T3" }).count()).resolves.toBe(0);
    await expect(view.locator("button", { hasText: /^Ask for approval$/ }).count()).resolves.toBe(0);
    await expect(needsYou(view, "Alpha laptop").first().locator(".hint").textContent()).resolves.toBe(
      "Answer in T3 on Alpha laptop",
    );
    expect(host.links).toEqual([]);
  });
});
