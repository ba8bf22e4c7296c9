/**
 * A real gate with its page open in headless Chromium, a passkey enrolled there through the page's
 * own form, and one spawned `t3-connector-write bridge` per MCP client the file names: what the
 * browser tests that drive the page through real bridges share, instead of each repeating the
 * hooks, the spawn and the enrollment. The hooks are the file's (one gate for all its tests), as
 * these tests follow one person and their clients through several steps.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { builtBin } from "@t3-connector/test-support/built-bins";
import {
  type AuthenticatorPage,
  launchChromium,
  openWithAuthenticator,
} from "@t3-connector/test-support/chromium";
import {
  pageOrigin,
  type RealGate,
  type RealGateOptions,
  startRealGate,
} from "@t3-connector/test-support/real-gate";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll } from "vitest";
import { waitForMessage } from "./gate-page.js";

const BIN = builtBin("t3-connector-write");

/** What a bridge's MCP client says about itself at initialize (the page shows it as the holder). */
export interface BridgeClientInfo {
  readonly name: string;
  readonly version?: string;
}

export interface GateWithBridges {
  readonly real: RealGate;
  readonly tab: AuthenticatorPage;
  readonly page: Page;
  /** The connected MCP client of the bridge the file named at `index`. */
  client(index: number): Client;
}

export type Body = Record<string, unknown>;
export type ToolAnswer = { isError?: boolean; structuredContent?: unknown; content?: unknown };

async function spawnBridge(real: RealGate, info: BridgeClientInfo): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, "bridge"],
    env: { ...(process.env as Record<string, string>), T3_CONNECTOR_WRITE_CONFIG: real.config.path },
    stderr: "pipe",
  });
  const client = new Client({ name: info.name, version: info.version ?? "1.0.0" });
  await client.connect(transport);
  return client;
}

/** Opens the page before any request exists, and enrolls a passkey as the person does. */
async function openEnrolled(browser: Browser, real: RealGate): Promise<AuthenticatorPage> {
  const tab = await openWithAuthenticator(browser);
  const { page } = tab;
  await page.goto(`${pageOrigin(real.gate)}/`);
  await page.waitForSelector("body[data-ready=true][data-live=true]");
  await page.fill("[data-testid=passkey-name]", "test laptop");
  await page.fill("[data-testid=enroll-code]", real.enrollmentCode);
  await page.click("[data-testid=enroll-submit]");
  await waitForMessage(page, "Passkey registered.");
  return tab;
}

/** Registers the file's hooks; the answer gives what they started (throwing if they did not finish). */
export function useGateWithBridges(
  infos: readonly BridgeClientInfo[],
  gateOptions: RealGateOptions = {},
): () => GateWithBridges {
  let browser: Browser | undefined;
  let real: RealGate | undefined;
  let tab: AuthenticatorPage | undefined;
  const clients: Client[] = [];
  beforeAll(async () => {
    browser = await launchChromium();
    real = await startRealGate(gateOptions);
    for (const info of infos) clients.push(await spawnBridge(real, info));
    tab = await openEnrolled(browser, real);
  }, 180_000);
  afterAll(async () => {
    for (const client of clients) await client.close();
    await tab?.context.close();
    await browser?.close();
    await real?.close();
  });
  return () => {
    if (real === undefined || tab === undefined) throw new Error("setup did not finish");
    const client = (index: number): Client => {
      const connected = clients[index];
      if (connected === undefined) throw new Error(`bridge ${index} did not connect`);
      return connected;
    };
    return { real, tab, page: tab.page, client };
  };
}

export function callTool(by: Client, name: string, args: Body): Promise<ToolAnswer> {
  return by.callTool({ name, arguments: args }) as Promise<ToolAnswer>;
}

export const structured = (answer: ToolAnswer) => answer.structuredContent as Body;

export const textOf = (answer: ToolAnswer) =>
  (answer.content as Array<{ type: string; text?: string }> | undefined)?.[0]?.text ?? "";

/** Waits until the open page shows the request with this purpose. */
export async function requestOnPage(page: Page, purpose: string): Promise<void> {
  await page.locator("#request:not([hidden]) [data-testid=purpose]").filter({ hasText: purpose }).waitFor();
}

/**
 * Asks for a lease through `by`, waiting up to 30 s for the person, and resolves once the page
 * shows the request; `answer` is the waiting call, which settles when the person decides.
 */
export async function askOnPage(
  by: Client,
  page: Page,
  purpose: string,
  proposal: Body,
): Promise<{ answer: Promise<ToolAnswer> }> {
  const answer = callTool(by, "t3_pedir_aprovacao", { purpose, ...proposal, waitSeconds: 30 });
  await requestOnPage(page, purpose);
  return { answer };
}
