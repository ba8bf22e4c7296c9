/**
 * The write gate end to end, as a person and a bridge use it: the real gate (`startGate` on a
 * write config loaded from disk) over the simulator, headless Debian Chromium with a virtual
 * passkey, and the relay over a real socket. Nothing here calls the keeper or the desk directly:
 * the lease exists only because the page approved it with the passkey.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import {
  type AuthenticatorPage,
  launchChromium,
  openWithAuthenticator,
} from "@t3-connector/test-support/chromium";
import { pageOrigin, type RealGate, startRealGate } from "@t3-connector/test-support/real-gate";
import {
  IDLE_THREAD,
  LEASED_PROJECT,
  OTHER_PROJECT,
  OUTSIDE_THREAD,
} from "@t3-connector/test-support/sim-world";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AUDIT_FILE } from "../../src/audit/index.js";
import { waitForMessage } from "../browser/support/gate-page.js";
import { pinIdleThread } from "../support/pin-idle-thread.js";

let browser: Browser;
let real: RealGate;
let tab: AuthenticatorPage;

beforeAll(async () => {
  browser = await launchChromium();
  real = await startRealGate();
  tab = await openWithAuthenticator(browser);
}, 60_000);
afterAll(async () => {
  await tab?.context.close();
  await browser?.close();
  await real?.close();
});

type Body = Record<string, unknown>;
const body = (answer: { body: unknown }) => answer.body as Body;

const pin = (leaseId: string, operationId: string, threadId: string): Body =>
  pinIdleThread(leaseId, operationId, { input: { threadId } });

describe("a lease approved in a real browser governs writes through the relay", () => {
  it("enrolls with the printed code, approves a relay request narrowed to one project, writes once inside it, and nothing outside it or after revoke", async () => {
    const page = tab.page;
    const alpha = real.world.env("alpha");
    const beta = real.world.env("beta");
    const code = real.enrollmentCode;

    // Enrollment with the code the gate printed on its terminal.
    await page.goto(`${pageOrigin(real.gate)}/`);
    await page.waitForSelector("body[data-ready=true]");
    expect(await page.content()).not.toContain(code);
    await page.fill("[data-testid=enroll-code]", code);
    await page.click("[data-testid=enroll-submit]");
    await waitForMessage(page, "Passkey registered.");
    expect(await tab.credentials()).toHaveLength(1);

    // The bridge asks for approval through the relay; the link is for the page.
    const asked = await real.relay({ op: "request_approval" });
    expect(asked.status).toBe(200);
    const link = body(asked);
    expect(link.url).toBe(`${pageOrigin(real.gate)}/?request=${link.requestId}`);
    expect((link.covered as Body[]).map((covered) => covered.alias)).toEqual(["alpha", "beta"]);
    expect(body(await real.relay({ op: "lease" }))).toEqual({ active: false });

    // The person narrows it to one project of one environment and approves with the passkey.
    await page.goto(link.url as string);
    await page.waitForSelector("body[data-ready=true]");
    await page.uncheck("[data-testid=env-beta]");
    const alphaSet = page.locator(`fieldset[data-environment="${alpha.environmentId}"]`);
    await alphaSet.locator(`[data-testid="project-${OTHER_PROJECT}"]`).uncheck();
    expect(await alphaSet.locator(`[data-testid="project-${LEASED_PROJECT}"]`).isChecked()).toBe(true);
    await page.click("[data-testid=approve]");
    await waitForMessage(page, "Lease granted.");

    const status = body(await real.relay({ op: "lease" }));
    expect(status).toMatchObject({ active: true });
    const leaseId = status.leaseId as string;
    expect(leaseId).toBeTypeOf("string");

    // A write inside the lease reaches the simulator, exactly once.
    const written = await real.relay(pin(leaseId, "op-e2e-pin", IDLE_THREAD));
    expect(written.status, written.text).toBe(200);
    expect(body(written)).toMatchObject({ state: "completed", replayed: false });
    expect(alpha.model.receivedCommands).toHaveLength(1);
    expect(alpha.model.receivedCommands[0]).toMatchObject({
      type: "thread.pin",
      payload: expect.objectContaining({ threadId: IDLE_THREAD }),
    });
    expect(beta.model.receivedCommands).toHaveLength(0);

    // A write on a thread of the project left out is refused, and nothing more is sent.
    const outside = await real.relay(pin(leaseId, "op-e2e-outside", OUTSIDE_THREAD));
    expect([outside.status, body(outside).error]).toEqual([403, "scope_denied"]);
    const otherEnvironment = await real.relay({
      ...pin(leaseId, "op-e2e-beta", IDLE_THREAD),
      environment: "beta",
    });
    expect([otherEnvironment.status, body(otherEnvironment).error]).toEqual([
      403,
      "environment_not_in_lease",
    ]);
    expect(real.world.commandCount()).toBe(1);

    // The page lists the write, then the revoke button closes the lease.
    await page.reload();
    await page.waitForSelector("body[data-ready=true]");
    expect(await page.locator("[data-testid=writes]").textContent()).toContain("op-e2e-pin");
    await page.click("[data-testid=revoke]");
    await waitForMessage(page, "Every lease revoked.");
    const afterRevoke = await real.relay(pin(leaseId, "op-e2e-after-revoke", IDLE_THREAD));
    expect([afterRevoke.status, body(afterRevoke).error]).toEqual([403, "lease_closed"]);
    expect(real.world.commandCount()).toBe(1);
    expect(body(await real.relay({ op: "lease" }))).toEqual({ active: false });

    // The enrollment code was printed on the gate's terminal only: not in its audit log.
    const audit = await readFile(join(real.config.stateDir, AUDIT_FILE), "utf8");
    expect(audit).toContain("lease_granted");
    expect(audit).not.toContain(code);
  }, 60_000);
});
