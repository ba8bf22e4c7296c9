/**
 * Headless Debian Chromium through playwright-core, with a CDP virtual authenticator (CTAP2,
 * internal, resident keys, user verification). If Chromium cannot start the test fails loudly.
 */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Browser, type BrowserContext, chromium, type Locator, type Page } from "playwright-core";

export const CHROMIUM_PATH = "/usr/bin/chromium";

export async function launchChromium(): Promise<Browser> {
  try {
    return await chromium.launch({
      executablePath: CHROMIUM_PATH,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    });
  } catch (error) {
    throw new Error(
      `Chromium could not start from ${CHROMIUM_PATH} (install the Debian package "chromium"): ${String(error)}`,
    );
  }
}

export interface AuthenticatorPage {
  context: BrowserContext;
  page: Page;
  /** The virtual authenticator's credentials (to check what it holds). */
  credentials(): Promise<{ credentialId: string; signCount: number }[]>;
  /** Puts back every credential with this signature counter (a cloned key that lags behind). */
  rewindSignCount(signCount: number): Promise<void>;
  /** Swaps in a fresh authenticator (another device): the old one and its keys are gone. */
  replaceAuthenticator(): Promise<void>;
}

export async function openWithAuthenticator(
  browser: Browser,
  viewport?: { width: number; height: number },
): Promise<AuthenticatorPage> {
  const context = await browser.newContext(viewport === undefined ? {} : { viewport });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  const add = async () =>
    (
      await cdp.send("WebAuthn.addVirtualAuthenticator", {
        options: {
          protocol: "ctap2",
          transport: "internal",
          hasResidentKey: true,
          hasUserVerification: true,
          isUserVerified: true,
          automaticPresenceSimulation: true,
        },
      })
    ).authenticatorId;
  let authenticatorId = await add();
  return {
    context,
    page,
    async rewindSignCount(signCount) {
      const { credentials } = await cdp.send("WebAuthn.getCredentials", { authenticatorId });
      for (const credential of credentials) {
        await cdp.send("WebAuthn.removeCredential", {
          authenticatorId,
          credentialId: credential.credentialId,
        });
        await cdp.send("WebAuthn.addCredential", {
          authenticatorId,
          credential: { ...credential, signCount },
        });
      }
    },
    async replaceAuthenticator() {
      await cdp.send("WebAuthn.removeVirtualAuthenticator", { authenticatorId });
      authenticatorId = await add();
    },
    async credentials() {
      const { credentials } = await cdp.send("WebAuthn.getCredentials", { authenticatorId });
      return credentials.map((credential) => ({
        credentialId: credential.credentialId,
        signCount: credential.signCount,
      }));
    },
  };
}

/** A POST from inside the page (real origin, real socket), answering status and JSON body. */
export function pagePost(
  page: Page,
  path: string,
  body: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  return page.evaluate(
    async ({ path, body }) => {
      const response = await fetch(path, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(body),
      });
      const answer = (await response.json().catch(() => ({}))) as Record<string, unknown>;
      return { status: response.status, body: answer };
    },
    { path, body },
  );
}

/** Runs an assertion in the page for options the test got from the gate. */
export function signInPage(page: Page, options: unknown): Promise<unknown> {
  return page.evaluate(
    (optionsJSON) =>
      (
        globalThis as unknown as {
          SimpleWebAuthnBrowser: { startAuthentication(o: { optionsJSON: unknown }): Promise<unknown> };
        }
      ).SimpleWebAuthnBrowser.startAuthentication({ optionsJSON }),
    options,
  );
}

/** Runs a registration in the page for options the test got from the gate. */
export function registerInPage(page: Page, options: unknown): Promise<unknown> {
  return page.evaluate(
    (optionsJSON) =>
      (
        globalThis as unknown as {
          SimpleWebAuthnBrowser: { startRegistration(o: { optionsJSON: unknown }): Promise<unknown> };
        }
      ).SimpleWebAuthnBrowser.startRegistration({ optionsJSON }),
    options,
  );
}

/** Screenshots land here (gitignored; CI keeps the folder as an artifact). */
export const SCREENSHOT_DIR = fileURLToPath(new URL("../../test-output/screenshots/", import.meta.url));

/** A full-page screenshot named `<name>-<width>.png` at the page's current viewport width. */
export async function screenshot(page: Page, name: string): Promise<string> {
  await mkdir(SCREENSHOT_DIR, { recursive: true });
  const width = page.viewportSize()?.width ?? 0;
  const path = join(SCREENSHOT_DIR, `${name}-${width}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

// The helpers below run in the page. The tests are type-checked without the DOM library, so
// each reads the page's globals through a small cast of `globalThis`.

/** The page's full scrolling width, and how far it exceeds the viewport (0 when it does not). */
export function pageWidth(page: Page): Promise<{ scrollWidth: number; overflow: number }> {
  return page.evaluate(() => {
    type Root = { scrollWidth: number; clientWidth: number };
    const doc = (
      globalThis as unknown as { document: { scrollingElement: Root | null; documentElement: Root } }
    ).document;
    const root = doc.scrollingElement ?? doc.documentElement;
    return { scrollWidth: root.scrollWidth, overflow: root.scrollWidth - root.clientWidth };
  });
}

/** The `data-id` of every checked checkbox the locator matches, in page order. */
export function checkedIds(inputs: Locator): Promise<string[]> {
  return inputs.evaluateAll((nodes) =>
    nodes
      .map((node) => node as unknown as { checked: boolean; dataset: { id?: string } })
      .filter((input) => input.checked)
      .map((input) => input.dataset.id ?? ""),
  );
}

/** How many of the matched inputs have no <label>. */
export function unlabelledCount(inputs: Locator): Promise<number> {
  return inputs.evaluateAll(
    (nodes) =>
      nodes.filter((node) => (node as unknown as { labels: { length: number } | null }).labels?.length === 0)
        .length,
  );
}

/** One computed style property of the first matched element. */
export function computedStyle(target: Locator, property: string): Promise<string> {
  return target.evaluate(
    (node, name) =>
      (globalThis as unknown as { getComputedStyle(n: unknown): Record<string, string> }).getComputedStyle(
        node,
      )[name] ?? "",
    property,
  );
}

/** The focused element's `data-testid` and computed outline style. */
export function focused(page: Page): Promise<{ testId: string; outlineStyle: string }> {
  return page.evaluate(() => {
    const scope = globalThis as unknown as {
      document: { activeElement: { getAttribute(name: string): string | null } | null };
      getComputedStyle(n: unknown): { outlineStyle: string };
    };
    const active = scope.document.activeElement;
    if (active === null) return { testId: "", outlineStyle: "none" };
    return {
      testId: active.getAttribute("data-testid") ?? "",
      outlineStyle: scope.getComputedStyle(active).outlineStyle,
    };
  });
}

/** Waits until the tab's title is exactly `title`. */
export async function waitForTitle(page: Page, title: string): Promise<void> {
  // A function, not a string: the gate's CSP forbids eval in its page.
  await page.waitForFunction(
    (expected) => (globalThis as unknown as { document: { title: string } }).document.title === expected,
    title,
  );
}
