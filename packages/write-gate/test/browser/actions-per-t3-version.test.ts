/**
 * The approval page offers, per environment, only the actions that environment's T3 version can
 * run, and names the others as unsupported by that version (ADR 0009): 44 for a protocol-2
 * environment, 35 for a 0.0.31 one. Real Chromium with a virtual authenticator.
 */
import { ABSENT_COMMAND_TYPES_0031 } from "@t3-connector/t3-sim";
import {
  type AuthenticatorPage,
  launchChromium,
  openWithAuthenticator,
} from "@t3-connector/test-support/chromium";
import { ENROLLMENT_CODE, type SimGate, startSimGate } from "@t3-connector/test-support/sim-gate";
import { ACTION_IDS } from "@t3-connector/write-engine/actions";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const PROJECT = { id: "project-api", title: "API", workspaceRoot: "/work/api" };

let browser: Browser;
let gate: SimGate;
let tab: AuthenticatorPage;

beforeAll(async () => {
  browser = await launchChromium();
  gate = await startSimGate({
    environments: [
      { alias: "current", projects: [PROJECT] },
      { alias: "older", projects: [PROJECT], compat: "0.0.31" },
    ],
    serve: true,
  });
  tab = await openWithAuthenticator(browser);
}, 30_000);
afterAll(async () => {
  await tab?.context.close();
  await gate?.close();
  await browser?.close();
});

describe("the approval page over a protocol-2 and a 0.0.31 environment", () => {
  it("offers every action for the protocol-2 environment and all but the 9 it lacks for the 0.0.31 one, naming them", async () => {
    const { page } = tab;
    await page.goto(`${gate.origin}/`);
    await page.waitForSelector("body[data-ready=true]");
    await page.fill("[data-testid=enroll-code]", ENROLLMENT_CODE);
    await page.click("[data-testid=enroll-submit]");
    await page.locator("[data-testid=message]").filter({ hasText: "Passkey registered." }).waitFor();

    const link = await gate.desk.request({});
    await page.goto(link.url);
    await page.waitForSelector("body[data-ready=true]");
    const current = gate.sim.environment("current").environmentId;
    const older = gate.sim.environment("older").environmentId;
    await page.locator(`[data-testid="unsupported-${older}"]`).waitFor();

    const offered = (environmentId: string) =>
      page.locator(`fieldset[data-environment="${environmentId}"] input[data-kind=action]`).count();
    expect(await offered(current)).toBe(ACTION_IDS.length);
    expect(await offered(older)).toBe(ACTION_IDS.length - ABSENT_COMMAND_TYPES_0031.length);
    expect(await page.locator(`[data-testid="unsupported-${older}"]`).textContent()).toBe(
      "Not supported by T3 0.0.31 (9)",
    );
    const named = await page
      .locator(`fieldset[data-environment="${older}"] ul.unsupported li`)
      .allTextContents();
    expect(named.sort()).toEqual([...ABSENT_COMMAND_TYPES_0031].sort());
    // Named, never offered: no checkbox carries an unsupported action in the 0.0.31 environment.
    expect(
      await page.locator(`fieldset[data-environment="${older}"] input[data-id="thread.pin.reorder"]`).count(),
    ).toBe(0);
    expect(await page.locator(`[data-testid="unsupported-${current}"]`).count()).toBe(0);
  });
});
