/**
 * Several leases at once (ADR 0028), as two clients and a person meet them: two spawned bridges
 * each get a lease of their own with a different scope, approved in headless Chromium; each write
 * passes only under its own lease; the page lists both leases with their holders, and ending one
 * there leaves the other working.
 */
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pageOrigin, type RealGate, startRealGate } from "../e2e/support/real-gate.js";
import { IDLE_THREAD } from "../support/sim-world.js";
import { type AuthenticatorPage, launchChromium, openWithAuthenticator } from "./support/browser.js";
import { waitForMessage } from "./support/gate-page.js";

const BIN = fileURLToPath(new URL("../../bin/t3-connector-write.js", import.meta.url));

let browser: Awaited<ReturnType<typeof launchChromium>> | undefined;
let real: RealGate | undefined;
let tab: AuthenticatorPage | undefined;
let pinner: Client | undefined;
let marker: Client | undefined;

async function spawnBridge(gate: RealGate, name: string): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, "bridge"],
    env: { ...(process.env as Record<string, string>), T3_CONNECTOR_WRITE_CONFIG: gate.config.path },
    stderr: "pipe",
  });
  const connected = new Client({ name, version: "1.0.0" });
  await connected.connect(transport);
  return connected;
}

beforeAll(async () => {
  browser = await launchChromium();
  real = await startRealGate();
  tab = await openWithAuthenticator(browser);
  pinner = await spawnBridge(real, "pin-client");
  marker = await spawnBridge(real, "mark-client");
  const page = tab.page;
  await page.goto(`${pageOrigin(real.gate)}/`);
  await page.waitForSelector("body[data-ready=true][data-live=true]");
  await page.fill("[data-testid=passkey-name]", "test laptop");
  await page.fill("[data-testid=enroll-code]", real.enrollmentCode);
  await page.click("[data-testid=enroll-submit]");
  await waitForMessage(page, "Passkey registered.");
}, 180_000);

afterAll(async () => {
  await pinner?.close();
  await marker?.close();
  await tab?.context.close();
  await browser?.close();
  await real?.close();
});

type Body = Record<string, unknown>;
type ToolAnswer = { isError?: boolean; structuredContent?: unknown; content?: unknown };

function call(by: Client | undefined, name: string, args: Body): Promise<ToolAnswer> {
  if (by === undefined) throw new Error("the bridge client did not connect");
  return by.callTool({ name, arguments: args }) as Promise<ToolAnswer>;
}
const structured = (answer: ToolAnswer) => answer.structuredContent as Body;
const textOf = (answer: ToolAnswer) =>
  (answer.content as Array<{ type: string; text?: string }> | undefined)?.[0]?.text ?? "";

function write(by: Client | undefined, tool: string, leaseId: string, operationId: string) {
  return call(by, tool, { leaseId, environment: "alpha", operationId, input: { threadId: IDLE_THREAD } });
}

/** Asks through `by`, approves what it proposed on the page, and answers the granted leaseId. */
async function approvedLease(page: Page, by: Client | undefined, purpose: string, action: string) {
  const waiting = call(by, "t3_pedir_aprovacao", { purpose, actions: [action], waitSeconds: 30 });
  await page.locator("#request:not([hidden]) [data-testid=purpose]").filter({ hasText: purpose }).waitFor();
  await page.click("[data-testid=approve]");
  const answer = await waiting;
  expect(answer.isError, textOf(answer)).toBeFalsy();
  expect(structured(answer)).toMatchObject({ authorized: true });
  return structured(answer).leaseId as string;
}

describe("several leases at once, one per client", () => {
  it("gives each bridge its own lease and scope, each write passing only under its own lease", async () => {
    if (real === undefined || tab === undefined) throw new Error("setup did not finish");
    const page = tab.page;
    const pinLease = await approvedLease(page, pinner, "pin the idle thread", "thread.pin");
    const markLease = await approvedLease(page, marker, "mark the idle thread unread", "thread.mark-unread");
    expect(markLease).not.toBe(pinLease);

    // Each client asking again gets its own lease back, never the other's.
    expect(structured(await call(pinner, "t3_pedir_aprovacao", {}))).toMatchObject({ leaseId: pinLease });
    expect(structured(await call(marker, "t3_pedir_aprovacao", {}))).toMatchObject({ leaseId: markLease });

    const before = real.world.commandCount();
    const pinned = await write(pinner, "t3_escrever_thread_pin", pinLease, "op-pin-own");
    expect(pinned.isError, textOf(pinned)).toBeFalsy();
    expect(structured(pinned)).toMatchObject({ state: "completed", leaseId: pinLease });
    const marked = await write(marker, "t3_escrever_thread_mark_unread", markLease, "op-mark-own");
    expect(marked.isError, textOf(marked)).toBeFalsy();
    expect(structured(marked)).toMatchObject({ state: "completed", leaseId: markLease });
    expect(real.world.commandCount()).toBe(before + 2);

    // Outside its own scope, or under the other client's lease: refused, nothing sent.
    const pinOutside = await write(pinner, "t3_escrever_thread_mark_unread", pinLease, "op-pin-outside");
    expect(textOf(pinOutside)).toMatch(/^scope_denied: /);
    const markOutside = await write(marker, "t3_escrever_thread_pin", markLease, "op-mark-outside");
    expect(textOf(markOutside)).toMatch(/^scope_denied: /);
    const borrowed = await write(marker, "t3_escrever_thread_pin", pinLease, "op-borrowed");
    expect(textOf(borrowed)).toMatch(/^lease_closed: this lease was approved for another client/);
    expect(real.world.commandCount()).toBe(before + 2);
  }, 90_000);

  it("lists both leases with their holders on the page, and ending one there leaves the other working", async () => {
    if (real === undefined || tab === undefined) throw new Error("setup did not finish");
    const page = tab.page;
    const pinLease = structured(await call(pinner, "t3_pedir_aprovacao", {})).leaseId as string;
    const markLease = structured(await call(marker, "t3_pedir_aprovacao", {})).leaseId as string;
    const cards = page.locator("[data-testid=open-lease]");
    const pinCard = page.locator(`[data-lease-id="${pinLease}"]`);
    const markCard = page.locator(`[data-lease-id="${markLease}"]`);
    await pinCard.waitFor();
    await markCard.waitFor();
    expect(await cards.count()).toBe(2);
    expect(await pinCard.locator("[data-testid=lease-holder]").textContent()).toContain(
      "says it is pin-client 1.0.0 (not verified)",
    );
    expect(await markCard.locator("[data-testid=lease-holder]").textContent()).toContain(
      "says it is mark-client 1.0.0 (not verified)",
    );
    expect(await pinCard.locator("[data-testid=countdown]").textContent()).toMatch(/^\d+:\d\d$/);
    // Each card lists its own lease's writes, and only those.
    await pinCard.locator("[data-testid=writes] tr", { hasText: "op-pin-own" }).waitFor();
    expect(await pinCard.locator("[data-testid=writes] tr", { hasText: "op-mark-own" }).count()).toBe(0);
    await markCard.locator("[data-testid=writes] tr", { hasText: "op-mark-own" }).waitFor();

    await pinCard.locator("[data-testid=end-lease]").click();
    await waitForMessage(page, "Lease ended.");
    await pinCard.waitFor({ state: "detached" });
    expect(await cards.count()).toBe(1);
    expect(await markCard.count()).toBe(1);
    expect(real.gate.lease.list().map((lease) => lease.leaseId)).toEqual([markLease]);

    const before = real.world.commandCount();
    const ended = await write(pinner, "t3_escrever_thread_pin", pinLease, "op-pin-after-end");
    expect(textOf(ended)).toMatch(/^lease_closed: /);
    const still = await write(marker, "t3_escrever_thread_mark_unread", markLease, "op-mark-after-end");
    expect(still.isError, textOf(still)).toBeFalsy();
    expect(real.world.commandCount()).toBe(before + 1);
    // The client whose lease ended is asked to get a new one; it never inherits the other's.
    const askedAgain = structured(await call(pinner, "t3_pedir_aprovacao", {}));
    expect(askedAgain).toMatchObject({ authorized: false });
    expect(askedAgain.leaseId).toBeUndefined();
  }, 90_000);
});
