/**
 * Headless Debian Chromium through playwright-core, with a CDP virtual authenticator (CTAP2,
 * internal, resident keys, user verification). If Chromium cannot start the test fails loudly.
 */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";

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
export const SCREENSHOT_DIR = fileURLToPath(
  new URL("../../../../../test-output/screenshots/", import.meta.url),
);

/** A full-page screenshot named `<name>-<width>.png` at the page's current viewport width. */
export async function screenshot(page: Page, name: string): Promise<string> {
  await mkdir(SCREENSHOT_DIR, { recursive: true });
  const width = page.viewportSize()?.width ?? 0;
  const path = join(SCREENSHOT_DIR, `${name}-${width}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/** How far the page is wider than its viewport (0 when nothing overflows sideways). */
export function horizontalOverflow(page: Page): Promise<number> {
  return page.evaluate(() => {
    const root = document.scrollingElement ?? document.documentElement;
    return root.scrollWidth - root.clientWidth;
  });
}
