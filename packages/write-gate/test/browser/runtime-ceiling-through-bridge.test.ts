/**
 * Issue 21's runtime ceiling as a client and a person meet it: the spawned bridge asks for a
 * thread.launch lease, the page in headless Chromium shows the ceiling in words (default
 * approval-required; full-access when proposed, narrowed by the person), and a launch above the
 * ceiling, or a message to a thread already running above it, is refused `runtime_mode_above_lease`
 * with nothing reaching the simulator; a launch that names no mode runs at the ceiling (ADR 0037).
 */

import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { IDLE_THREAD, LEASED_PROJECT } from "@t3-connector/test-support/sim-world";
import { SAMPLE_INPUTS } from "@t3-connector/write-engine/actions";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import {
  askOnPage,
  type Body,
  callTool,
  structured,
  type ToolAnswer,
  textOf,
  useGateWithBridges,
} from "./support/gate-with-bridges.js";

const started = useGateWithBridges([{ name: "ceiling-client" }, { name: "second-client" }]);

/** A tool call through the first client's bridge, or through `by`. */
function call(name: string, args: Body, by?: Client): Promise<ToolAnswer> {
  return callTool(by ?? started().client(0), name, args);
}

/** The ceilings the page offers, in order. */
async function offeredCeilings(page: Page): Promise<string[]> {
  return page
    .locator("[data-testid=ceiling] input[type=radio]")
    .evaluateAll((inputs) => inputs.map((input) => (input as unknown as { value: string }).value));
}

function launch(leaseId: string, operationId: string, runtimeMode: string): Promise<ToolAnswer> {
  return call("t3_escrever_thread_launch", {
    leaseId,
    environment: "alpha",
    operationId,
    input: {
      ...SAMPLE_INPUTS["thread.launch"],
      workspaceStrategy: { type: "root" },
      runtimeMode,
    },
  });
}

describe("the runtime ceiling of a lease", () => {
  it("defaults to approval-required: a full-access launch is refused before T3, an approval-required one completes", async () => {
    const { real, page } = started();
    const { answer: waiting } = await askOnPage(started().client(0), page, "start a review", {
      actions: ["thread.launch"],
    });
    expect(await offeredCeilings(page)).toEqual(["approval-required"]);
    expect(await page.locator("[data-testid=ceiling-words-alpha]").textContent()).toContain(
      "ask in T3 before every command and file change",
    );
    await page.click("[data-testid=approve]");
    const answer = await waiting;
    expect(answer.isError, textOf(answer)).toBeFalsy();
    const leaseId = structured(answer).leaseId as string;
    expect(leaseId).toBeTypeOf("string");
    await page.locator("[data-testid=lease-ceiling]").filter({ hasText: "approval-required" }).waitFor();

    const before = real.world.commandCount();
    const refused = await launch(leaseId, "op-ceiling-full", "full-access");
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/^runtime_mode_above_lease: .*ceiling approval-required/);
    expect(real.world.commandCount()).toBe(before);

    const completed = await launch(leaseId, "op-ceiling-ok", "approval-required");
    expect(completed.isError, textOf(completed)).toBeFalsy();
    expect(structured(completed)).toMatchObject({ state: "completed", action: "thread.launch" });
    expect(real.world.commandCount()).toBe(before + 1);

    // A launch that names no mode runs at the lease's ceiling, not at T3's full-access, and says so.
    const { runtimeMode: _named, ...unnamed } = SAMPLE_INPUTS["thread.launch"];
    const defaulted = await call("t3_escrever_thread_launch", {
      leaseId,
      environment: "alpha",
      operationId: "op-ceiling-unnamed",
      input: { ...unnamed, workspaceStrategy: { type: "root" } },
    });
    expect(defaulted.isError, textOf(defaulted)).toBeFalsy();
    expect(structured(defaulted)).toMatchObject({ state: "completed", runtimeMode: "approval-required" });
    const launched = (structured(defaulted).receipt as { threadId: string }).threadId;
    expect(real.world.env("alpha").model.getThread(launched)?.shell.runtimeMode).toBe("approval-required");
    expect(real.world.commandCount()).toBe(before + 2);
    await page.click("[data-testid=revoke]");
    await page.locator("#lease[hidden]").waitFor({ state: "attached" });
  }, 60_000);

  it("refuses a message to a thread already running in full-access under an approval-required lease; one within it completes", async () => {
    const { real, page } = started();
    const alpha = real.world.env("alpha");
    // Seeded threads run in full-access (the simulator's default, as T3's own); this one asks first.
    expect(alpha.model.getThread(IDLE_THREAD)?.shell.runtimeMode).toBe("full-access");
    const asking = alpha.model.addThread({
      projectId: LEASED_PROJECT,
      title: "asks before commands",
      state: "completed",
      runtimeMode: "approval-required",
    });
    const { answer: waiting } = await askOnPage(started().client(0), page, "message the review threads", {
      actions: ["thread.send"],
    });
    expect(await page.locator("[data-testid=request-summary]").textContent()).toContain(
      "agents at most approval-required",
    );
    await page.click("[data-testid=approve]");
    const answer = await waiting;
    expect(answer.isError, textOf(answer)).toBeFalsy();
    const leaseId = structured(answer).leaseId as string;

    const message = (threadId: string, operationId: string) =>
      call("t3_escrever_thread_send", {
        leaseId,
        environment: "alpha",
        operationId,
        input: {
          threadId,
          clientRequestId: operationId,
          text: "run the tests",
          delivery: "start_immediately",
        },
      });
    const before = real.world.commandCount();
    const refused = await message(IDLE_THREAD, "op-message-full");
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(
      /^runtime_mode_above_lease: thread\.send would drive thread \S+, which runs in full-access, above this lease's ceiling approval-required/,
    );
    expect(real.world.commandCount()).toBe(before);

    const sent = await message(asking, "op-message-asking");
    expect(sent.isError, textOf(sent)).toBeFalsy();
    expect(structured(sent)).toMatchObject({ state: "completed", action: "thread.send" });
    expect(real.world.commandCount()).toBe(before + 1);
    await page.click("[data-testid=revoke]");
    await page.locator("#lease[hidden]").waitFor({ state: "attached" });
  }, 60_000);

  it("shows the full-access words when proposed, and the person's narrowing is what the lease enforces", async () => {
    const { real, page } = started();
    const { answer: waiting } = await askOnPage(started().client(0), page, "start an unattended review", {
      actions: ["thread.launch"],
      runtimeCeiling: "full-access",
    });
    expect(await offeredCeilings(page)).toEqual([
      "full-access",
      "auto",
      "auto-accept-edits",
      "approval-required",
    ]);
    const words = page.locator("[data-testid=ceiling-words-alpha]");
    expect(await words.textContent()).toContain("can run any command on alpha without asking");
    await page.check("[data-testid=ceiling-auto-accept-edits]");
    expect(await words.textContent()).toContain("may change files without asking");
    await page.click("[data-testid=approve]");
    const answer = await waiting;
    expect(answer.isError, textOf(answer)).toBeFalsy();
    const leaseId = structured(answer).leaseId as string;

    const before = real.world.commandCount();
    const refused = await launch(leaseId, "op-narrowed-full", "full-access");
    expect(textOf(refused)).toMatch(/^runtime_mode_above_lease: .*ceiling auto-accept-edits/);
    const modeSwitch = await call("t3_escrever_thread_runtime_mode_set", {
      leaseId,
      environment: "alpha",
      operationId: "op-narrowed-switch",
      input: { threadId: SAMPLE_INPUTS["thread.runtime-mode.set"].threadId, runtimeMode: "auto" },
    });
    // Not granted at all: the lease covers only thread.launch.
    expect(textOf(modeSwitch)).toMatch(/^scope_denied: /);
    expect(real.world.commandCount()).toBe(before);
    const completed = await launch(leaseId, "op-narrowed-ok", "auto-accept-edits");
    expect(completed.isError, textOf(completed)).toBeFalsy();
    expect(real.world.commandCount()).toBe(before + 1);
  }, 60_000);
});

describe("a lease belongs to the client that asked", () => {
  it("a second bridge asking gets a request of its own, and its write with the first client's leaseId is refused", async () => {
    const { real, page } = started();
    if (real.gate.lease.list().length > 0) {
      await page.click("[data-testid=revoke]");
      await page.locator("#lease[hidden]").waitFor({ state: "attached" });
    }
    const { answer: waiting } = await askOnPage(started().client(0), page, "pin for the first client", {
      actions: ["thread.pin"],
    });
    await page.click("[data-testid=approve]");
    const granted = await waiting;
    expect(granted.isError, textOf(granted)).toBeFalsy();
    const leaseId = structured(granted).leaseId as string;
    await page
      .locator("[data-testid=lease-holder]")
      .filter({ hasText: "says it is ceiling-client 1.0.0 (not verified)" })
      .waitFor();

    const other = started().client(1);
    const asked = await call("t3_pedir_aprovacao", {}, other);
    expect(asked.isError, textOf(asked)).toBeFalsy();
    expect(structured(asked)).toMatchObject({ authorized: false, decision: "pending" });
    expect(structured(asked).leaseId).toBeUndefined();
    expect(structured(asked).approvalUrl).toMatch(/\?request=/);

    const before = real.world.commandCount();
    const foreign = await call(
      "t3_escrever_thread_pin",
      { leaseId, environment: "alpha", operationId: "op-foreign-pin", input: { threadId: IDLE_THREAD } },
      other,
    );
    expect(foreign.isError).toBe(true);
    expect(textOf(foreign)).toMatch(/^lease_closed: this lease was approved for another client/);
    expect(real.world.commandCount()).toBe(before);

    // The holder still gets its own lease back and can use it.
    const again = await call("t3_pedir_aprovacao", {});
    expect(structured(again)).toMatchObject({ authorized: true, leaseId });
    const pin = await call("t3_escrever_thread_pin", {
      leaseId,
      environment: "alpha",
      operationId: "op-holder-pin",
      input: { threadId: IDLE_THREAD },
    });
    expect(pin.isError, textOf(pin)).toBeFalsy();
    expect(real.world.commandCount()).toBe(before + 1);
  }, 60_000);

  it("the holder asking for what its lease lacks gets a new link, validated, whose approval replaces its lease", async () => {
    const { real, page } = started();
    const held = structured(await call("t3_pedir_aprovacao", {}));
    expect(held).toMatchObject({ authorized: true });
    const oldLease = held.leaseId as string;

    const misnamed = await call("t3_pedir_aprovacao", { actions: ["thread.pinn"] });
    expect(misnamed.isError).toBe(true);
    expect(textOf(misnamed)).toMatch(/^proposal_invalid: /);

    const { answer: waiting } = await askOnPage(started().client(0), page, "archive the release thread too", {
      actions: ["thread.archive"],
    });
    await page.locator("[data-testid=request-hint]").filter({ hasText: "approving replaces it" }).waitFor();
    await page.click("[data-testid=approve]");
    const replaced = structured(await waiting);
    expect(replaced).toMatchObject({ authorized: true });
    expect(replaced.leaseId).not.toBe(oldLease);
    const before = real.world.commandCount();
    const stale = await call("t3_escrever_thread_pin", {
      leaseId: oldLease,
      environment: "alpha",
      operationId: "op-stale-pin",
      input: { threadId: IDLE_THREAD },
    });
    expect(textOf(stale)).toMatch(/^lease_closed: /);
    expect(real.world.commandCount()).toBe(before);
  }, 60_000);
});
