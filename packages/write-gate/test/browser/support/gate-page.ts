/**
 * One simulated gate per test with its page open in headless Chromium and a virtual authenticator:
 * the browser is launched once per file, and each test's tab and gate are closed after it. The
 * browser test files share this instead of each repeating the hooks and the enrollment steps.
 */

import {
  type AuthenticatorPage,
  launchChromium,
  openWithAuthenticator,
} from "@t3-connector/test-support/chromium";
import {
  ENROLLMENT_CODE,
  type ProjectSeed,
  type SimGate,
  startSimGate,
  type ThreadSeed,
} from "@t3-connector/test-support/sim-gate";
import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll } from "vitest";
import type { StartupWarnings } from "../../../src/app/index.js";

export interface OpenGatePageOptions {
  /** The projects of the one environment, `alpha`. */
  readonly projects: ProjectSeed[];
  /** The gate's start-up findings, to add to while the page is open. */
  readonly startupWarnings?: StartupWarnings;
  /** Threads of `alpha`, e.g. for a request that names one. */
  readonly threads?: ThreadSeed[];
  readonly viewport?: { width: number; height: number };
  /** Enrolls a passkey under this name through the page's own form. */
  readonly enrollAs?: string;
  /** Installs Playwright's clock before the page loads (moved by the test with the gate's clock). */
  readonly fakeClock?: boolean;
  /** Runs before the page loads, e.g. an init script. */
  readonly beforeLoad?: (page: Page) => Promise<unknown>;
}

export interface GatePage {
  readonly gate: SimGate;
  readonly tab: AuthenticatorPage;
  readonly page: Page;
}

/** Registers the file's hooks; `open` starts a gate and opens its page at `/`. */
export function useGatePage(): { browser(): Browser; open(options: OpenGatePageOptions): Promise<GatePage> } {
  let browser: Browser | undefined;
  let current: { gate: SimGate; tab?: AuthenticatorPage } | undefined;
  beforeAll(async () => {
    browser = await launchChromium();
  }, 30_000);
  afterAll(async () => {
    await browser?.close();
  });
  afterEach(async () => {
    await current?.tab?.context.close();
    await current?.gate.close();
    current = undefined;
  });
  const launched = (): Browser => {
    if (browser === undefined) throw new Error("Chromium did not start");
    return browser;
  };
  return {
    browser: launched,
    async open(options) {
      const gate = await startSimGate({
        environments: [
          {
            alias: "alpha",
            projects: options.projects,
            ...(options.threads === undefined ? {} : { threads: options.threads }),
          },
        ],
        serve: true,
        ...(options.startupWarnings === undefined ? {} : { startupWarnings: options.startupWarnings }),
      });
      current = { gate };
      const tab = await openWithAuthenticator(launched(), options.viewport);
      current.tab = tab;
      const { page } = tab;
      if (options.fakeClock === true) await page.clock.install();
      await options.beforeLoad?.(page);
      await page.goto(`${gate.origin}/`);
      await page.waitForSelector("body[data-ready=true]");
      if (options.enrollAs !== undefined) await enrollThroughThePage(page, options.enrollAs);
      return { gate, tab, page };
    },
  };
}

/** Registers a passkey with the enrollment code, the way a person does on the page. */
export async function enrollThroughThePage(page: Page, name: string): Promise<void> {
  await page.fill("[data-testid=passkey-name]", name);
  await page.fill("[data-testid=enroll-code]", ENROLLMENT_CODE);
  await page.click("[data-testid=enroll-submit]");
  await waitForMessage(page, "Passkey registered.");
}

/** Resolves once the page's status line shows `text`. */
export function waitForMessage(page: Page, text: string): Promise<void> {
  return page.locator("[data-testid=message]").filter({ hasText: text }).waitFor();
}
