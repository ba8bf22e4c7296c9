/**
 * The start-up check ends in the background, often after the page is already open: its findings
 * reach the open page through the event stream (a `warnings` nudge), without a reload, and an
 * environment with no finding shows no banner.
 */
import { describe, expect, it } from "vitest";
import { StartupWarnings } from "../../src/app/index.js";
import { useGatePage } from "./support/gate-page.js";

const PROJECTS = [{ id: "project-api", title: "API server", workspaceRoot: "/work/api" }];
const gatePage = useGatePage();

describe("the start-up warnings banner", () => {
  it("stays hidden with no finding, and appears on the open page when the check reports one", async () => {
    const startupWarnings = new StartupWarnings();
    const { page } = await gatePage.open({ projects: PROJECTS, startupWarnings });
    await page.waitForSelector("body[data-live=true]");
    expect(await page.locator("[data-testid=warnings]").isHidden()).toBe(true);

    startupWarnings.add([
      {
        alias: "alpha",
        environmentId: "env-configured",
        code: "scope_mismatch",
        message: 'the token of environment "alpha" lacks orchestration:operate',
        advice: 'Pair an operate token for "alpha" with exactly the operate scopes, then restart the gate.',
      },
    ]);
    const item = page.locator("[data-testid=warnings] [data-testid=warning-alpha]");
    await item.waitFor();
    expect(await item.getAttribute("data-code")).toBe("scope_mismatch");
    expect(await item.locator("strong").textContent()).toBe("alpha: writes there will fail.");
    expect(await item.locator(".warning-next").textContent()).toContain("Pair an operate token");
  });
});
