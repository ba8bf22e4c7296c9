/**
 * A client waiting on t3_pedir_aprovacao through a spawned bridge while the person decides on the
 * page in headless Chromium: a denial answers the waiting call and grants nothing; an approval
 * answers it within a second and the lease passes only the action it granted.
 */

import { checkedIds } from "@t3-connector/test-support/chromium";
import { IDLE_THREAD } from "@t3-connector/test-support/sim-world";
import { actionLabel } from "@t3-connector/write-engine/actions";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { waitForMessage } from "./support/gate-page.js";
import {
  askOnPage,
  type Body,
  callTool,
  structured,
  type ToolAnswer,
  textOf,
  useGateWithBridges,
} from "./support/gate-with-bridges.js";

const PURPOSE = "pin the release thread";

const started = useGateWithBridges([{ name: "done-when-client", version: "3.1.4" }]);

function call(name: string, args: Body): Promise<ToolAnswer> {
  return callTool(started().client(0), name, args);
}

/** The distinct ids of the ticked action checkboxes. */
async function tickedActions(page: Page): Promise<string[]> {
  const ids = await checkedIds(page.locator("#request-scope input[data-kind=action]"));
  return [...new Set(ids)].sort();
}

describe("a client waits for the person's decision on the gate page", () => {
  it("returns denied to the waiting call when the person presses Deny, and grants nothing", async () => {
    const { real, page } = started();
    const { answer: waiting } = await askOnPage(started().client(0), page, "archive every thread", {
      actions: ["thread.archive"],
    });
    await page.click("[data-testid=deny]");
    const answer = await waiting;
    expect(answer.isError, textOf(answer)).toBeFalsy();
    expect(structured(answer)).toMatchObject({ authorized: false, decision: "denied" });
    await waitForMessage(page, "Request denied.");
    expect(real.gate.lease.list()).toEqual([]);
    expect(real.world.commandCount()).toBe(0);
  }, 60_000);

  it("shows the purpose and only thread.pin ticked, returns the lease within a second of the approval, and refuses thread.archive under it", async () => {
    const { real, page } = started();
    const { answer: waiting } = await askOnPage(started().client(0), page, PURPOSE, {
      actions: ["thread.pin"],
    });
    let answeredAt = 0;
    const answered = waiting.then((answer) => {
      answeredAt = performance.now();
      return answer;
    });
    expect(await page.locator("[data-testid=request-client]").textContent()).toContain(
      "done-when-client 3.1.4",
    );
    expect(await tickedActions(page)).toEqual(["thread.pin"]);

    const pressedAt = performance.now();
    await page.click("[data-testid=approve]");
    const clickedAt = performance.now();
    const answer = await answered;
    // From the click's completion, as the issue asks; from the press, the passkey ceremony included.
    const elapsed = Math.max(0, answeredAt - clickedAt);
    process.stderr.write(
      `approval: click done to tool result ${elapsed.toFixed(0)} ms; press to tool result ${(answeredAt - pressedAt).toFixed(0)} ms\n`,
    );
    expect(elapsed).toBeLessThan(1000);
    expect(answeredAt - pressedAt).toBeLessThan(1000);
    expect(answer.isError, textOf(answer)).toBeFalsy();
    const lease = structured(answer);
    expect(lease).toMatchObject({ authorized: true });
    const leaseId = lease.leaseId as string;
    expect(leaseId).toBeTypeOf("string");
    // The fingerprint the client got is the one the page shows for the open lease.
    await page.locator("#lease:not([hidden])").waitFor();
    expect(await page.locator("[data-testid=lease-fingerprint]").textContent()).toBe(lease.scopeFingerprint);

    const archive = await call("t3_escrever_thread_archive", {
      leaseId,
      environment: "alpha",
      operationId: "op-done-when-archive",
      input: { threadId: IDLE_THREAD },
    });
    expect(archive.isError).toBe(true);
    expect(textOf(archive)).toMatch(/^scope_denied/);
    expect(real.world.commandCount()).toBe(0);

    const pin = await call("t3_escrever_thread_pin", {
      leaseId,
      environment: "alpha",
      operationId: "op-done-when-pin",
      input: { threadId: IDLE_THREAD },
    });
    expect(pin.isError, textOf(pin)).toBeFalsy();
    expect(real.world.commandCount()).toBe(1);
    // The write shows on the open page by itself, under the action's label.
    const row = page.locator("[data-testid=writes] tr", { hasText: "op-done-when-pin" });
    await row.waitFor();
    const cells = await row.locator("td").allTextContents();
    expect(cells.slice(1, 4)).toEqual(["alpha", expect.any(String), actionLabel("thread.pin")]);
    expect(cells[4]).toContain("completed");
  }, 60_000);
});
