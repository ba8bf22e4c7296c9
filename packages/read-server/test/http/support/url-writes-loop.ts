/**
 * The write loop by URL as a person meets it: a real gate on the simulator (its write config on
 * disk), `serve --http` with the OAuth profile pointed at that write config, and headless
 * Chromium with one browser context for the OAuth sign-in page and one for the gate's approval
 * page, each with its own virtual authenticator. Clients are the MCP SDK's, signed in by DCR.
 */
import { auth } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  type AuthenticatorPage,
  launchChromium,
  openWithAuthenticator,
} from "@t3-connector/test-support/chromium";
import { MemoryProvider } from "@t3-connector/test-support/memory-provider";
import {
  type CallbackServer,
  type OAuthServe,
  startCallbackServer,
  startOAuthServe,
} from "@t3-connector/test-support/oauth-serve";
import { pageOrigin, type RealGate, startRealGate } from "@t3-connector/test-support/real-gate";
import type { Browser, Page } from "playwright-core";
import { expect } from "vitest";

export interface UrlWritesLoop {
  readonly gate: RealGate;
  readonly serve: OAuthServe;
  readonly callback: CallbackServer;
  readonly browser: Browser;
  /** The OAuth sign-in page's tab. */
  readonly signIn: AuthenticatorPage;
  /** The gate's approval page's tab, a passkey already enrolled there. */
  readonly approval: AuthenticatorPage;
  close(): Promise<void>;
}

export async function startUrlWritesLoop(): Promise<UrlWritesLoop> {
  const [gate, callback, browser] = await Promise.all([
    startRealGate(),
    startCallbackServer(),
    launchChromium(),
  ]);
  const serve = await startOAuthServe({}, { env: { T3_CONNECTOR_WRITE_CONFIG: gate.config.path } });
  const signIn = await openWithAuthenticator(browser);
  const approval = await openWithAuthenticator(browser);
  await approval.page.goto(`${pageOrigin(gate.gate)}/`);
  await approval.page.waitForSelector("body[data-ready=true][data-live=true]");
  await approval.page.fill("[data-testid=passkey-name]", "test laptop");
  await approval.page.fill("[data-testid=enroll-code]", gate.enrollmentCode);
  await approval.page.click("[data-testid=enroll-submit]");
  await waitForMessage(approval.page, "Passkey registered.");
  return {
    gate,
    serve,
    callback,
    browser,
    signIn,
    approval,
    async close() {
      await signIn.context.close();
      await approval.context.close();
      await browser.close();
      await callback.close();
      await serve.close();
      await gate.close();
    },
  };
}

export interface SignedIn {
  readonly client: Client;
  readonly provider: MemoryProvider;
  /** The write box's words on the consent page, and whether it was ticked; absent without one. */
  readonly writeChoice: { text: string; ticked: boolean } | undefined;
}

/**
 * DCR, PKCE and the passkey page for `scope`; `allowWrite` unticks the write box when false (it
 * is ticked as asked). Answers a connected SDK client.
 */
export async function signInByUrl(
  loop: Pick<UrlWritesLoop, "serve" | "callback" | "signIn">,
  options: { scope?: string; allowWrite?: boolean; name?: string } = {},
): Promise<SignedIn> {
  const { serve, callback } = loop;
  const provider = new MemoryProvider(callback.url);
  expect(
    await auth(provider, {
      serverUrl: serve.mcpUrl,
      ...(options.scope === undefined ? {} : { scope: options.scope }),
    }),
  ).toBe("REDIRECT");
  const decided = await decideOnConsentPage(loop, provider.authorizationUrl as URL, options);
  const writeChoice = decided.writeChoice;
  const code = decided.callback.get("code") as string;
  expect(await auth(provider, { serverUrl: serve.mcpUrl, authorizationCode: code })).toBe("AUTHORIZED");
  const client = new Client({ name: options.name ?? "url-client", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(serve.mcpUrl), { authProvider: provider }));
  return { client, provider, writeChoice };
}

/** What the person saw of the write box and what the client's callback received. */
export interface ConsentOutcome {
  readonly writeChoice: { text: string; ticked: boolean } | undefined;
  readonly callback: URLSearchParams;
}

/**
 * Opens `authorizationUrl` on the sign-in tab as a person does: enrolls the first passkey with the
 * terminal's code (which signs in too) or signs in with it, reads the write box, unticks it when
 * `allowWrite` is false, and allows. Answers what the box showed and the callback's parameters.
 */
export async function decideOnConsentPage(
  loop: Pick<UrlWritesLoop, "serve" | "callback" | "signIn">,
  authorizationUrl: URL,
  options: { allowWrite?: boolean } = {},
): Promise<ConsentOutcome> {
  const page = loop.signIn.page;
  const arrived = loop.callback.next();
  await page.goto(authorizationUrl.href);
  await page.waitForSelector("body[data-ready=true]");
  if (await page.isVisible("[data-testid=enroll]")) {
    // The first time, creating the passkey signs in too: one ceremony, then consent.
    await page.fill("[data-testid=enroll-code]", loop.serve.enrollmentCode);
    await page.click("[data-testid=enroll]");
  } else {
    await page.click("[data-testid=sign-in]");
  }
  await page.locator("[data-testid=consent-approve]").waitFor();
  const box = page.locator("[data-testid=consent-write]");
  const writeChoice =
    (await box.count()) === 0
      ? undefined
      : {
          text: (await page.locator("label", { has: box }).textContent()) ?? "",
          ticked: await box.isChecked(),
        };
  if (options.allowWrite === false) await page.uncheck("[data-testid=consent-write]");
  await page.click("[data-testid=consent-approve]");
  await page.waitForURL((url) => url.pathname === "/callback");
  return { writeChoice, callback: await arrived };
}

export type ToolAnswer = { isError?: boolean; structuredContent?: unknown; content?: unknown };

export function call(client: Client, name: string, args: Record<string, unknown>): Promise<ToolAnswer> {
  return client.callTool({ name, arguments: args }) as Promise<ToolAnswer>;
}

export const structured = (answer: ToolAnswer) => answer.structuredContent as Record<string, unknown>;

export const textOf = (answer: ToolAnswer) =>
  (answer.content as Array<{ type: string; text?: string }> | undefined)?.[0]?.text ?? "";

/** Opens `approvalUrl` on the gate's page, waits for the request with `purpose`, approves it. */
export async function approveOnGatePage(page: Page, approvalUrl: string, purpose: string): Promise<void> {
  await page.goto(approvalUrl);
  await page.locator("#request:not([hidden]) [data-testid=purpose]").filter({ hasText: purpose }).waitFor();
  await page.click("[data-testid=approve]");
  await waitForMessage(page, "Lease granted.");
}

/** Resolves once the gate page's status line shows `text`. */
function waitForMessage(page: Page, text: string): Promise<void> {
  return page.locator("[data-testid=message]").filter({ hasText: text }).waitFor();
}
