/**
 * The next lease, every time (ADR 0040), as a real user meets it: one spawned bridge asks, the
 * person approves in headless Chromium, the client writes, and the lease ends — End on the page,
 * Revoke all, its 60-minute expiry (the gate's injected clock), a gate restart. Asking again with
 * `{}` opens exactly one request however often the client calls, the person approves it on the
 * page, and the next `{}` (or the waiting one) returns the new lease, which writes. Another bridge
 * process (what a restarted bridge is) presenting the old lease or the request id learns nothing
 * of the lease and is told how to ask.
 */

import { postJson } from "@t3-connector/test-support/gate-http";
import { pageOrigin } from "@t3-connector/test-support/real-gate";
import { IDLE_THREAD } from "@t3-connector/test-support/sim-world";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { waitForMessage } from "./support/gate-page.js";
import { type Body, callTool, structured, textOf, useGateWithBridges } from "./support/gate-with-bridges.js";

const started = useGateWithBridges([{ name: "returning-client" }, { name: "restarted-client" }]);
const client = () => started().client(0);

let writes = 0;

/** A pin under `leaseId` from the first bridge: it must complete and reach the simulator once. */
async function pinUnder(leaseId: string): Promise<void> {
  const { real } = started();
  const before = real.world.commandCount();
  writes += 1;
  const pinned = await callTool(client(), "t3_escrever_thread_pin", {
    leaseId,
    environment: "alpha",
    operationId: `op-next-lease-${writes}`,
    input: { threadId: IDLE_THREAD },
  });
  expect(pinned.isError, textOf(pinned)).toBeFalsy();
  expect(structured(pinned)).toMatchObject({ state: "completed", leaseId });
  expect(real.world.commandCount()).toBe(before + 1);
}

/** The page's pending requests, read with the page's own Origin over a real socket. */
async function pendingOnPage(): Promise<Body[]> {
  const { real } = started();
  const answer = await postJson(real.gate.port, "/api/state", {}, { origin: pageOrigin(real.gate) });
  return (answer.body as Body).pendingRequests as Body[];
}

/** Ten `{}` calls in a row with no lease: one request between them, its link the same each time. */
async function askTenTimes(): Promise<Body> {
  const answers: Body[] = [];
  for (let index = 0; index < 10; index += 1) {
    answers.push(structured(await callTool(client(), "t3_pedir_aprovacao", {})));
  }
  for (const answer of answers) expect(answer).toMatchObject({ authorized: false, decision: "pending" });
  expect(new Set(answers.map((answer) => answer.requestId)).size).toBe(1);
  expect((await pendingOnPage()).map((row) => row.requestId)).toEqual([answers[0]?.requestId]);
  return answers[0] as Body;
}

/** The person opens the request's link and approves it with the passkey. */
async function approveOnPage(page: Page, approvalUrl: string): Promise<void> {
  await page.goto(approvalUrl);
  await page.locator("#request:not([hidden])").waitFor();
  await page.click("[data-testid=approve]");
  await waitForMessage(page, "Lease granted.");
}

/** Asks ten times, the person approves, and the next `{}` answers the new lease, which writes. */
async function nextLease(page: Page, previous: string): Promise<string> {
  const asked = await askTenTimes();
  await approveOnPage(page, asked.approvalUrl as string);
  const answer = structured(await callTool(client(), "t3_pedir_aprovacao", {}));
  expect(answer).toMatchObject({ authorized: true });
  const leaseId = answer.leaseId as string;
  expect(leaseId).not.toBe(previous);
  await pinUnder(leaseId);
  return leaseId;
}

let current = "";

describe("the next lease for the same bridge process", () => {
  it("gets the first lease through a waiting call, then a new one after End on the page", async () => {
    const { page } = started();
    const waiting = callTool(client(), "t3_pedir_aprovacao", { waitSeconds: 30 });
    await page.locator("#request:not([hidden])").waitFor();
    await page.click("[data-testid=approve]");
    const first = structured(await waiting);
    expect(first).toMatchObject({ authorized: true });
    current = first.leaseId as string;
    await pinUnder(current);

    const card = page.locator(`[data-lease-id="${current}"]`);
    await card.locator("[data-testid=end-lease]").click();
    await waitForMessage(page, "Lease ended.");
    current = await nextLease(page, current);
  }, 90_000);

  it("gets a new one after Revoke all, the waiting `{}` call itself returning it", async () => {
    const { page } = started();
    await page.locator(`[data-lease-id="${current}"]`).waitFor();
    await page.click("[data-testid=revoke]");
    await waitForMessage(page, "Every lease revoked.");
    const asked = await askTenTimes();
    const waiting = callTool(client(), "t3_pedir_aprovacao", { waitSeconds: 30 });
    await approveOnPage(page, asked.approvalUrl as string);
    const answer = structured(await waiting);
    expect(answer).toMatchObject({ authorized: true, requestId: asked.requestId });
    expect(answer.leaseId).not.toBe(current);
    current = answer.leaseId as string;
    await pinUnder(current);
  }, 90_000);

  it("gets a new one after the lease expired (the gate's clock moved 61 minutes)", async () => {
    const { real, page } = started();
    real.clock.offsetMs += 61 * 60_000;
    expect(structured(await callTool(client(), "t3_pedir_aprovacao", {}))).toMatchObject({
      authorized: false,
    });
    expect(real.gate.lease.list()).toEqual([]);
    await page.goto(`${pageOrigin(real.gate)}/`);
    current = await nextLease(page, current);
  }, 90_000);

  it("gets a new one after a gate restart", async () => {
    const { real, page } = started();
    await real.restart();
    await page.goto(`${pageOrigin(real.gate)}/`);
    await page.waitForSelector("body[data-ready=true]");
    current = await nextLease(page, current);
  }, 90_000);

  it("tells another bridge process (a restarted one) that the lease belonged to the old process, and gives it neither lease id", async () => {
    const { real, page } = started();
    const other = started().client(1);
    const before = real.world.commandCount();
    const borrowed = await callTool(other, "t3_escrever_thread_pin", {
      leaseId: current,
      environment: "alpha",
      operationId: "op-restarted-bridge",
      input: { threadId: IDLE_THREAD },
    });
    expect(textOf(borrowed)).toMatch(/^lease_closed: .*earlier run of this bridge.*t3_pedir_aprovacao \{\}/);
    expect(real.world.commandCount()).toBe(before);

    // The returning client's request id, presented by the other process after its approval.
    await page.click("[data-testid=revoke]");
    await waitForMessage(page, "Every lease revoked.");
    const asked = await askTenTimes();
    await approveOnPage(page, asked.approvalUrl as string);
    const status = await callTool(other, "t3_pedir_aprovacao", { requestId: asked.requestId as string });
    expect(status.isError, textOf(status)).toBeFalsy();
    expect(structured(status)).toMatchObject({ authorized: false, decision: "approved" });
    const leaseId = structured(await callTool(client(), "t3_pedir_aprovacao", {})).leaseId as string;
    expect(leaseId).toBeTypeOf("string");
    expect(JSON.stringify(status)).not.toContain(leaseId);
    expect(structured(status).nextStep).toMatch(/does not hold its lease/);
  }, 90_000);
});
