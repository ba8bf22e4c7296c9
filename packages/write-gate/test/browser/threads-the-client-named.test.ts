/**
 * A lease limited to what the page shows (ADR 0041), through a spawned bridge and the page in
 * headless Chromium: a request naming one thread shows it by title and environment, and the
 * lease the person approves admits a pin of that thread and refuses a pin of another thread of
 * the same project `scope_denied` (nothing sent, counted at the simulator). Ticking the widening
 * control makes the summary say so, and that lease admits the other thread.
 */

import { IDLE_THREAD, RUNNING_THREAD } from "@t3-connector/test-support/sim-world";
import { describe, expect, it } from "vitest";
import { askOnPage, callTool, structured, textOf, useGateWithBridges } from "./support/gate-with-bridges.js";

const started = useGateWithBridges([{ name: "one-thread-client" }]);
const client = () => started().client(0);
/** The simulator's title for a thread added without one. */
const TITLE = `Thread ${IDLE_THREAD.slice(0, 8)}`;

function pin(leaseId: string, threadId: string, operationId: string) {
  return callTool(client(), "t3_escrever_thread_pin", {
    leaseId,
    environment: "alpha",
    operationId,
    input: { threadId },
  });
}

describe("a lease limited to the threads the client named", () => {
  it("shows the named thread by title and environment, and refuses a pin of a thread it did not name", async () => {
    const { real, page } = started();
    const { answer } = await askOnPage(client(), page, "pin the idle thread", {
      actions: ["thread.pin"],
      threads: [IDLE_THREAD],
    });
    // The simulator's two environments hold the same thread ids: the page names each by its environment.
    const named = page.locator(`[data-testid=named-thread-alpha-${IDLE_THREAD}]`);
    expect(await named.textContent()).toBe(`“${TITLE}” in alpha`);
    const summary = await page.locator("[data-testid=request-summary]").textContent();
    expect(summary).toContain(`only the threads the client named: “${TITLE}” (alpha)`);
    expect(summary).not.toContain(IDLE_THREAD);
    await page.click("[data-testid=approve]");
    const lease = structured(await answer);
    expect(lease).toMatchObject({ authorized: true });
    const leaseId = lease.leaseId as string;
    // The open lease's card says the same: only that thread, by title.
    const card = page.locator(`[data-lease-id="${leaseId}"] [data-testid=lease-threads-alpha]`);
    expect(await card.textContent()).toBe(`Threads: only “${TITLE}” (and threads it starts itself)`);

    const before = real.world.commandCount();
    const other = await pin(leaseId, RUNNING_THREAD, "op-pin-unnamed");
    expect(textOf(other)).toMatch(new RegExp(`^scope_denied: thread ${RUNNING_THREAD} is not one the lease`));
    expect(real.world.commandCount()).toBe(before);
    const own = await pin(leaseId, IDLE_THREAD, "op-pin-named");
    expect(own.isError, textOf(own)).toBeFalsy();
    expect(real.world.commandCount()).toBe(before + 1);
  }, 90_000);

  it("widens to the whole project only when the person ticks the control, and the summary says so", async () => {
    const { real, page } = started();
    const { answer } = await askOnPage(client(), page, "pin more threads", {
      actions: ["thread.pin"],
      threads: [IDLE_THREAD],
    });
    await page.check("[data-testid=whole-projects]");
    expect(await page.locator("[data-testid=request-summary]").textContent()).toContain(
      `every thread of these projects (widened from the threads the client named: “${TITLE}” (alpha)`,
    );
    await page.click("[data-testid=approve]");
    const lease = structured(await answer);
    expect(lease).toMatchObject({ authorized: true });
    const before = real.world.commandCount();
    const other = await pin(lease.leaseId as string, RUNNING_THREAD, "op-pin-widened");
    expect(other.isError, textOf(other)).toBeFalsy();
    expect(real.world.commandCount()).toBe(before + 1);
  }, 90_000);
});
