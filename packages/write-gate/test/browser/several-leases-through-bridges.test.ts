/**
 * Several leases at once (ADR 0028), as two clients and a person meet them: two spawned bridges
 * each get a lease of their own with a different scope, approved in headless Chromium; each write
 * passes only under its own lease; the page lists both leases with their holders, and ending one
 * there leaves the other working.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { IDLE_THREAD } from "@t3-connector/test-support/sim-world";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { waitForMessage } from "./support/gate-page.js";
import { askOnPage, callTool, structured, textOf, useGateWithBridges } from "./support/gate-with-bridges.js";

const started = useGateWithBridges([{ name: "pin-client" }, { name: "mark-client" }]);
/** The two clients: the first asks to pin, the second to mark unread. */
const clients = () => [started().client(0), started().client(1)] as const;

function write(by: Client, tool: string, leaseId: string, operationId: string) {
  return callTool(by, tool, { leaseId, environment: "alpha", operationId, input: { threadId: IDLE_THREAD } });
}

/** Asks through `by`, approves what it proposed on the page, and answers the granted leaseId. */
async function approvedLease(page: Page, by: Client, purpose: string, action: string) {
  const { answer: waiting } = await askOnPage(by, page, purpose, { actions: [action] });
  await page.click("[data-testid=approve]");
  const answer = await waiting;
  expect(answer.isError, textOf(answer)).toBeFalsy();
  expect(structured(answer)).toMatchObject({ authorized: true });
  return structured(answer).leaseId as string;
}

describe("several leases at once, one per client", () => {
  it("gives each bridge its own lease and scope, each write passing only under its own lease", async () => {
    const { real, page } = started();
    const [pinner, marker] = clients();
    const pinLease = await approvedLease(page, pinner, "pin the idle thread", "thread.pin");
    const markLease = await approvedLease(page, marker, "mark the idle thread unread", "thread.mark-unread");
    expect(markLease).not.toBe(pinLease);

    // Each client asking again gets its own lease back, never the other's.
    expect(structured(await callTool(pinner, "t3_pedir_aprovacao", {}))).toMatchObject({ leaseId: pinLease });
    expect(structured(await callTool(marker, "t3_pedir_aprovacao", {}))).toMatchObject({
      leaseId: markLease,
    });

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
    const { real, page } = started();
    const [pinner, marker] = clients();
    const pinLease = structured(await callTool(pinner, "t3_pedir_aprovacao", {})).leaseId as string;
    const markLease = structured(await callTool(marker, "t3_pedir_aprovacao", {})).leaseId as string;
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
    const askedAgain = structured(await callTool(pinner, "t3_pedir_aprovacao", {}));
    expect(askedAgain).toMatchObject({ authorized: false });
    expect(askedAgain.leaseId).toBeUndefined();
  }, 90_000);
});
