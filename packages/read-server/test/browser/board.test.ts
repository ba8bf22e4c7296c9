import type { SimEnvironment } from "@t3-connector/t3-sim";
import { type SimReadSetup, startSimRead } from "@t3-connector/test-support/sim-context";
import type { Browser, FrameLocator } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { BOARD_MIME_TYPE, BOARD_RESOURCE_URI } from "../../src/board/board-resource.js";
import { readToolDefinitions } from "../../src/tools/index.js";
import { ALPHA_ID, BETA_ID } from "../tools/listing-support.js";
import { type BoardHost, launchChromium, openBoardHost, RESOURCE_MIME_TYPE } from "./support/apps-host.js";

const ATTENTION = ["Choose test scope", "Deploy preview", "Plan: split packages", "Run the test suite?"];
const HOSTILE_TITLE = `<img src=x onerror="document.title='pwned'"><script>document.title='pwned'</script>`;

/** The few DOM names the page-side callbacks use (the tests compile without the DOM library). */
interface FocusKeyed {
  dataset?: { focusKey?: string };
}
interface StyledRoot {
  style: { getPropertyValue(name: string): string };
}
interface ViewGlobals {
  getComputedStyle(element: unknown): { color: string };
  document: {
    title: string;
    activeElement: FocusKeyed | null;
    addEventListener(type: string, listener: (event: { violatedDirective: string }) => void): void;
  };
}

let browser: Browser;
let setup: SimReadSetup;
let host: BoardHost | undefined;
let counter = 0;

beforeAll(async () => {
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
});

beforeEach(async () => {
  // Manual clocks: a run ends exactly when the test moves its environment's time.
  setup = await startSimRead({
    simulator: {
      clock: "manual",
      environments: [
        { alias: "alpha", environmentId: ALPHA_ID, label: "Alpha laptop", seed: "demo" },
        { alias: "beta", environmentId: BETA_ID, label: "Beta server", seed: "demo" },
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

function projectOf(env: SimEnvironment, title: string): string {
  const project = [...env.model.store.projects.values()].find((p) => p.title === title);
  if (project === undefined) throw new Error(`no project ${title}`);
  return project.id;
}

/** A thread whose new run is started now; it ends when the test advances the clock. */
async function startRun(env: SimEnvironment, title: string): Promise<string> {
  const threadId = env.model.addThread({ projectId: projectOf(env, "t3-connector"), title });
  env.model.scriptNextRun(threadId, {});
  const outcome = await env.model.callUnary("orchestration.dispatchCommand", {
    commandId: `cmd-board-${++counter}`,
    type: "message.dispatch",
    threadId,
    messageId: `msg-board-${counter}`,
    text: "Please fix the parser.",
    attachments: [],
    createdBy: "user",
    creationSource: "mcp",
    dispatchMode: { type: "start_immediately" },
  });
  expect(outcome.kind).toBe("success");
  return threadId;
}

function rowsOf(view: FrameLocator, list: string, machine: string) {
  return view.locator(`#${list} li`).filter({ hasText: machine });
}

async function titlesIn(view: FrameLocator, list: string, machine: string): Promise<string[]> {
  return (await rowsOf(view, list, machine).locator(".title").allTextContents()).sort();
}

describe("the board in an MCP Apps host (real Chromium, ext-apps AppBridge)", () => {
  it("renders both demo machines, needs you first, and moves a finished run without reloading", async () => {
    const alpha = setup.sim.environment("alpha");
    const threadId = await startRun(alpha, "Board parser fix");
    alpha.clock.advance(10); // starting → running
    host = await openBoardHost(browser, setup.client, { toolName: "t3_control_plane", width: 390 });
    expect(host.resourceUri).toBe(BOARD_RESOURCE_URI);
    expect(host.mimeType).toBe(RESOURCE_MIME_TYPE);
    expect(BOARD_MIME_TYPE).toBe(RESOURCE_MIME_TYPE);
    const { view } = host;

    const running = view.locator(`#running li[data-key="${ALPHA_ID}/${threadId}"]`);
    await running.waitFor();
    for (const machine of ["Alpha laptop", "Beta server"]) {
      await expect
        .poll(() => titlesIn(view, "needs-you", machine))
        .toEqual(expect.arrayContaining(ATTENTION));
    }
    await expect(running.locator(".state").textContent()).resolves.toBe("running");
    await expect(running.locator(".meta").textContent()).resolves.toMatch(
      /^Alpha laptop · t3-connector · for /,
    );

    // The view's document is never replaced: a marker set now must survive the update.
    await view.locator("body").evaluate((body) => body.setAttribute("data-marker", "same-document"));
    const before = Number(await view.locator("body").getAttribute("data-wait-refreshes"));
    const started = performance.now();
    alpha.clock.advance(1_000); // the run completes
    await view.locator(`#done li[data-key="${ALPHA_ID}/${threadId}"]`).waitFor();
    const elapsedMs = performance.now() - started;
    await expect(running.count()).resolves.toBe(0);
    await expect(view.locator("body").getAttribute("data-marker")).resolves.toBe("same-document");
    // Event-driven: the refresh that moved it was caused by the wait tool returning, not by the
    // five-second fallback.
    await host.bodyCountPast("data-wait-refreshes", before);
    // How soon is a figure, not a pass mark (a busy machine is slower; performance targets live in
    // bench/): what the test holds is that the move came from the wait tool's event.
    process.stderr.write(`board: finished run shown as done ${Math.round(elapsedMs)} ms after it ended\n`);
  });

  it("fits 390 px without sideways scroll, and every action works by keyboard alone", async () => {
    host = await openBoardHost(browser, setup.client, { toolName: "t3_control_plane", width: 390 });
    const { view, page } = host;
    await view.locator("#needs-you li").first().waitFor();
    const widths = await view
      .locator("html")
      .evaluate((html) => ({ scroll: html.scrollWidth, client: html.clientWidth }));
    expect(widths.scroll).toBeLessThanOrEqual(widths.client);
    const hostWidth = await page.locator("html").evaluate((html) => html.scrollWidth);
    expect(hostWidth).toBeLessThanOrEqual(390);

    const actions = await view
      .locator("button")
      .evaluateAll((buttons) => buttons.map((button) => (button as unknown as FocusKeyed).dataset?.focusKey));
    expect(actions.length).toBeGreaterThanOrEqual(2 * ATTENTION.length);
    const reached = new Set<string>();
    for (let press = 0; press < actions.length + 5 && reached.size < actions.length; press += 1) {
      await page.keyboard.press("Tab");
      const key = await view
        .locator("body")
        .evaluate(() => (globalThis as unknown as ViewGlobals).document.activeElement?.dataset?.focusKey);
      if (key !== undefined) reached.add(key);
    }
    expect([...reached].sort()).toEqual([...actions].sort());

    // The focused button is an "ask the model to act" or "ask for approval": Enter sends the host
    // a prompt that names the thread by environment and id, and nothing else happens.
    const focused = [...reached].at(-1) as string;
    await page.keyboard.press("Enter");
    await host.messagesReach(1);
    expect(host.messages).toHaveLength(1);
    const first = host.messages[0]?.content[0] as { text?: string } | undefined;
    const text = first?.text ?? "";
    const threadId = focused.split("/")[1]?.split("#")[0] ?? "";
    expect(text).toContain(`threadId ${threadId}`);
    expect(text).toMatch(/environment (alpha|beta)/);
    expect(host.links).toEqual([]);
  });

  it("shows a hostile title as text, and cannot reach the network", async () => {
    const beta = setup.sim.environment("beta");
    beta.model.addThread({
      projectId: projectOf(beta, "website"),
      title: HOSTILE_TITLE,
      state: "waiting_approval",
    });
    host = await openBoardHost(browser, setup.client, {
      toolName: "t3_control_plane",
      width: 390,
      // The host's theme is applied; a variable whose value would end the declaration is not.
      hostContext: {
        theme: "dark",
        styles: {
          variables: {
            "--color-text-primary": "rgb(1, 2, 3)",
            "--color-text-secondary": "red; } body { display: none",
          },
        },
      },
    });
    const { view } = host;
    const hostile = view.locator("#needs-you li .title").filter({ hasText: "<img src=x" });
    await hostile.waitFor();
    await expect(hostile.textContent()).resolves.toBe(HOSTILE_TITLE);
    await expect(view.locator("img, iframe, script:not(:first-of-type)").count()).resolves.toBe(0);
    await expect(
      hostile.evaluate((title) => (globalThis as unknown as ViewGlobals).getComputedStyle(title).color),
    ).resolves.toBe("rgb(1, 2, 3)");
    await expect(
      view
        .locator("html")
        .evaluate((html) => (html as unknown as StyledRoot).style.getPropertyValue("--color-text-secondary")),
    ).resolves.toBe("");
    await expect(
      view.locator("html").evaluate(() => (globalThis as unknown as ViewGlobals).document.title),
    ).resolves.toBe("T3 agents board");
    // connect-src 'none': a request from the view's own document is refused by the policy.
    const fetched = await view.locator("html").evaluate(() =>
      fetch("http://127.0.0.1:9/").then(
        () => "reached",
        (error: Error) => error.name,
      ),
    );
    expect(fetched).toBe("TypeError");
    const violations = await view.locator("html").evaluate(
      () =>
        new Promise<string>((resolve) => {
          (globalThis as unknown as ViewGlobals).document.addEventListener(
            "securitypolicyviolation",
            (event) => resolve(event.violatedDirective),
          );
          void fetch("http://127.0.0.1:9/").catch(() => {});
        }),
    );
    expect(violations).toBe("connect-src");
  });

  it("ignores results and answers posted by any window but its host", async () => {
    host = await openBoardHost(browser, setup.client, { toolName: "t3_control_plane", width: 390 });
    const { view, page } = host;
    await view.locator("#needs-you li").first().waitFor();
    const refreshes = Number(await view.locator("body").getAttribute("data-refreshes"));
    // A sibling frame (another view, an ad) keeps answering every request id the board may be
    // waiting on, and sends a tool result, all claiming a thread "FORGED" that needs the person.
    await page.evaluate(() => {
      const forged = {
        complete: true,
        needsIntervention: {
          threads: [
            { threadId: "x", title: "FORGED", state: "needs_intervention", environment: { alias: "evil" } },
          ],
        },
      };
      const script = `const forged = ${JSON.stringify(forged)};
        const board = parent.frames[0];
        board.postMessage({ jsonrpc: "2.0", method: "ui/notifications/tool-result", params: { structuredContent: forged } }, "*");
        setInterval(() => {
          for (let id = 1; id <= 100; id += 1)
            board.postMessage({ jsonrpc: "2.0", id, result: { structuredContent: forged, content: [] } }, "*");
        }, 50);`;
      const doc = (
        globalThis as unknown as {
          document: {
            createElement(tag: string): Record<string, unknown>;
            body: { append(node: unknown): void };
          };
        }
      ).document;
      const sibling = doc.createElement("iframe");
      sibling.sandbox = "allow-scripts";
      sibling.srcdoc = `<script>${script}</script>`;
      doc.body.append(sibling);
    });
    // The next refresh (a wait returning, or the 5 s one) must still show only real threads.
    await host.bodyCountPast("data-refreshes", refreshes);
    await expect(view.locator("li", { hasText: "FORGED" }).count()).resolves.toBe(0);
    await expect(view.locator("#needs-you li").count()).resolves.toBeGreaterThanOrEqual(2 * ATTENTION.length);
  });
});
