/**
 * Attacks on the real gate (`startGate` over the simulator, write config loaded from disk), each
 * asserting that NO command reached the simulator. Where an attack needs an open lease to mean
 * anything, one is open and the test shows it is still open afterwards (a non-sending control),
 * so a refusal cannot come from a missing lease. Passkey attacks run in headless Chromium with a
 * virtual authenticator; the approval requests come through the relay as the bridge sends them.
 */
import { randomBytes } from "node:crypto";
import {
  type AuthenticatorPage,
  launchChromium,
  openWithAuthenticator,
  pagePost,
  registerInPage,
  signInPage,
} from "@t3-connector/test-support/chromium";
import { rawRequest } from "@t3-connector/test-support/gate-http";
import { pageOrigin, type RealGate, startRealGate } from "@t3-connector/test-support/real-gate";
import { RELAY_HEADER } from "@t3-connector/write-engine/relay-contract";
import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { LEASE_TTL_MS } from "../../src/lease/lease-keeper.js";
import { pinIdleThread } from "../support/pin-idle-thread.js";

type Body = Record<string, unknown>;
const body = (answer: { body: unknown }) => answer.body as Body;

let browser: Browser;
let real: RealGate;
let tab: AuthenticatorPage | undefined;

beforeAll(async () => {
  browser = await launchChromium();
}, 30_000);
afterAll(async () => {
  await browser?.close();
});
beforeEach(async () => {
  real = await startRealGate();
});
afterEach(async () => {
  await tab?.context.close();
  tab = undefined;
  await real?.close();
});

const dispatch = (leaseId: string, operationId: string): Body => pinIdleThread(leaseId, operationId);

/** Headers of a request the gate's own page would send. */
function pageHeaders(): Record<string, string> {
  return {
    host: `localhost:${real.gate.port}`,
    origin: pageOrigin(real.gate),
    "content-type": "application/json",
  };
}

/** The relay's headers as the bridge sends them, with this boot's capability. */
async function relayHeaders(): Promise<Record<string, string>> {
  return {
    host: `localhost:${real.gate.port}`,
    "content-type": "application/json",
    [RELAY_HEADER]: await real.capability(),
  };
}

async function expectLeaseOpen(leaseId: string): Promise<void> {
  expect(body(await real.relay({ op: "lease" }))).toMatchObject({ active: true, leaseId });
}

function expectNoCommand(): void {
  for (const env of real.world.sim.environments) expect(env.model.receivedCommands).toEqual([]);
}

async function openPage(): Promise<Page> {
  tab = await openWithAuthenticator(browser);
  await tab.page.goto(`${pageOrigin(real.gate)}/`);
  await tab.page.waitForSelector("body[data-ready=true]");
  return tab.page;
}

async function enroll(page: Page): Promise<void> {
  await page.fill("[data-testid=enroll-code]", real.enrollmentCode);
  await page.click("[data-testid=enroll-submit]");
  await page.locator("[data-testid=message]").filter({ hasText: "Passkey registered." }).waitFor();
}

/** An approval request as the bridge makes it: through the relay. */
/**
 * A request through the relay, as the helper's one client; `anotherClient` asks with a holder
 * secret of its own, since one client asking twice is answered its one request (ADR 0040).
 */
async function requestThroughRelay(anotherClient = false): Promise<string> {
  const leaseSecret = anotherClient ? { leaseSecret: randomBytes(32).toString("base64url") } : {};
  const answer = await real.relay({ op: "request_approval", ...leaseSecret });
  expect(answer.status).toBe(200);
  return body(answer).requestId as string;
}

describe("attacks on the write gate: nothing reaches the simulator", () => {
  it("refuses a write sent with a rebound or wrong Host", async () => {
    const leaseId = await real.grantLease();
    const payload = JSON.stringify(dispatch(leaseId, "op-host"));
    for (const host of ["evil.example", `evil.example:${real.gate.port}`, `127.0.0.1:${real.gate.port}`]) {
      const answer = await rawRequest({
        port: real.gate.port,
        method: "POST",
        path: "/relay",
        headers: { ...(await relayHeaders()), host },
        body: payload,
      });
      expect(answer.status, host).toBe(403);
    }
    await expectLeaseOpen(leaseId);
    expectNoCommand();
  });

  it("refuses a write on the relay from a browser Origin, and a revoke from another Origin", async () => {
    const leaseId = await real.grantLease();
    const payload = JSON.stringify(dispatch(leaseId, "op-origin"));
    for (const origin of [pageOrigin(real.gate), "http://evil.example", "null"]) {
      const answer = await rawRequest({
        port: real.gate.port,
        method: "POST",
        path: "/relay",
        headers: { ...(await relayHeaders()), origin },
        body: payload,
      });
      expect([answer.status, body(answer).error], origin).toEqual([403, "origin_or_method_invalid"]);
    }
    for (const origin of ["http://evil.example", `http://127.0.0.1:${real.gate.port}`]) {
      const revoke = await rawRequest({
        port: real.gate.port,
        method: "POST",
        path: "/api/revoke",
        headers: { ...pageHeaders(), origin },
        body: "{}",
      });
      expect([revoke.status, body(revoke).error], origin).toEqual([403, "origin_or_method_invalid"]);
    }
    await expectLeaseOpen(leaseId);
    expectNoCommand();
  });

  it("changes nothing on a GET: no dispatch on the relay, no revoke, no approval", async () => {
    const leaseId = await real.grantLease();
    const query = new URLSearchParams({
      op: "dispatch",
      leaseId,
      environment: "alpha",
      operationId: "op-get",
    });
    const relay = await rawRequest({
      port: real.gate.port,
      method: "GET",
      path: `/relay?${query}`,
      headers: await relayHeaders(),
    });
    expect(relay.status).toBe(403);
    for (const path of ["/api/revoke", "/api/requests/approve", "/api/enrollment/options"]) {
      const answer = await rawRequest({ port: real.gate.port, method: "GET", path, headers: pageHeaders() });
      expect([answer.status, body(answer).error], path).toEqual([403, "origin_or_method_invalid"]);
    }
    await expectLeaseOpen(leaseId);
    expectNoCommand();
  });

  it("refuses a forged relay capability of the right length, of a wrong length, and none", async () => {
    const leaseId = await real.grantLease();
    const genuine = await real.capability();
    const forged = randomBytes(32).toString("base64url");
    expect(forged).not.toBe(genuine);
    for (const capability of [forged, `${genuine}x`, genuine.slice(0, -1), null]) {
      const answer = await real.relay(dispatch(leaseId, "op-forged"), capability);
      expect([answer.status, body(answer).error]).toEqual([401, "channel_unverified"]);
    }
    await expectLeaseOpen(leaseId);
    expectNoCommand();
  });

  it("refuses the capability of the previous boot after a gate restart", async () => {
    const stale = await real.capability();
    await real.restart();
    expect(await real.capability()).not.toBe(stale);
    const leaseId = await real.grantLease();
    const answer = await real.relay(dispatch(leaseId, "op-stale"), stale);
    expect([answer.status, body(answer).error]).toEqual([401, "channel_unverified"]);
    await expectLeaseOpen(leaseId);
    expectNoCommand();
  });

  it("starts closed after a restart: the lease of the previous boot writes nothing", async () => {
    const leaseId = await real.grantLease();
    await real.restart();
    expect(body(await real.relay({ op: "lease" }))).toEqual({ active: false });
    const answer = await real.relay(dispatch(leaseId, "op-old-boot"));
    expect([answer.status, body(answer).error]).toEqual([403, "lease_closed"]);
    expectNoCommand();
  });

  it("refuses a replayed assertion: on its own request, and on a fresh request after a revoke", async () => {
    const page = await openPage();
    await enroll(page);
    const first = await requestThroughRelay();
    const options = await pagePost(page, "/api/requests/options", { requestId: first });
    const assertion = await signInPage(page, options.body.options);
    const granted = await pagePost(page, "/api/requests/approve", { requestId: first, response: assertion });
    expect(granted.body).toMatchObject({ active: true });
    const leaseId = granted.body.leaseId as string;
    const replay = await pagePost(page, "/api/requests/approve", { requestId: first, response: assertion });
    expect(replay.body).toEqual({ error: "request_used" });
    await expectLeaseOpen(leaseId);

    expect((await pagePost(page, "/api/revoke", {})).status).toBe(200);
    const fresh = await requestThroughRelay();
    await pagePost(page, "/api/requests/options", { requestId: fresh });
    const replayed = await pagePost(page, "/api/requests/approve", { requestId: fresh, response: assertion });
    expect(replayed.body).toEqual({ error: "assertion_invalid" });
    expect(body(await real.relay({ op: "lease" }))).toEqual({ active: false });
    const write = await real.relay(dispatch(leaseId, "op-replayed"));
    expect([write.status, body(write).error]).toEqual([403, "lease_closed"]);
    expectNoCommand();
  });

  it("refuses an assertion made for another request, and grants nothing", async () => {
    const page = await openPage();
    await enroll(page);
    const a = await requestThroughRelay();
    const b = await requestThroughRelay(true);
    await pagePost(page, "/api/requests/options", { requestId: a });
    const optionsB = await pagePost(page, "/api/requests/options", { requestId: b });
    const forB = await signInPage(page, optionsB.body.options);
    const crossed = await pagePost(page, "/api/requests/approve", { requestId: a, response: forB });
    expect([crossed.status, crossed.body]).toEqual([400, { error: "assertion_invalid" }]);
    expect(body(await real.relay({ op: "lease" }))).toEqual({ active: false });
    expectNoCommand();
  });

  it("refuses a write once the lease expired on the injected clock", async () => {
    const leaseId = await real.grantLease();
    await expectLeaseOpen(leaseId);
    real.clock.offsetMs += LEASE_TTL_MS;
    const answer = await real.relay(dispatch(leaseId, "op-expired"));
    expect([answer.status, body(answer).error]).toEqual([403, "lease_closed"]);
    expect(body(await real.relay({ op: "lease" }))).toEqual({ active: false });
    expectNoCommand();
  });

  it("refuses a write under a lease revoked from the page", async () => {
    const leaseId = await real.grantLease();
    await expectLeaseOpen(leaseId);
    const revoke = await rawRequest({
      port: real.gate.port,
      method: "POST",
      path: "/api/revoke",
      headers: pageHeaders(),
      body: "{}",
    });
    expect(revoke.status).toBe(200);
    const answer = await real.relay(dispatch(leaseId, "op-revoked"));
    expect([answer.status, body(answer).error]).toEqual([403, "lease_closed"]);
    expectNoCommand();
  });

  it("refuses enrollment without a code and with a wrong one: no passkey, so no lease", async () => {
    const page = await openPage();
    await page.click("[data-testid=enroll-submit]");
    // Told in words beside the button pressed.
    await page
      .locator("[data-testid=enroll-error]")
      .filter({ hasText: "Type the enrollment code printed on the gate's terminal." })
      .waitFor();
    expect((await pagePost(page, "/api/enrollment/options", { code: "" })).status).not.toBe(200);
    expect((await pagePost(page, "/api/enrollment/options", { code: "AAAA-BBBB-CCCC-DDDD" })).body).toEqual({
      error: "enrollment_code_invalid",
    });
    expect((await pagePost(page, "/api/state", {})).body).toMatchObject({ enrolled: false, passkeys: [] });
    const requestId = await requestThroughRelay();
    const options = await pagePost(page, "/api/requests/options", { requestId });
    expect(options.status).not.toBe(200);
    expect(body(await real.relay({ op: "lease" }))).toEqual({ active: false });
    expectNoCommand();
  });

  it("refuses a second enrollment with the used code", async () => {
    const page = await openPage();
    const first = await pagePost(page, "/api/enrollment/options", { code: real.enrollmentCode });
    const second = await pagePost(page, "/api/enrollment/options", { code: real.enrollmentCode });
    const firstKey = await registerInPage(page, first.body.options);
    const secondKey = await registerInPage(page, second.body.options);
    const done = await pagePost(page, "/api/enrollment/finish", {
      registrationId: first.body.registrationId,
      response: firstKey,
    });
    expect(done.status).toBe(200);
    const used = await pagePost(page, "/api/enrollment/finish", {
      registrationId: second.body.registrationId,
      response: secondKey,
    });
    expect(used.body).toEqual({ error: "enrollment_code_invalid" });
    // Another device with the same code: the code opens nothing once it served.
    const attacker = await openWithAuthenticator(browser);
    try {
      await attacker.page.goto(`${pageOrigin(real.gate)}/`);
      await attacker.page.waitForSelector("body[data-ready=true]");
      const again = await pagePost(attacker.page, "/api/enrollment/options", { code: real.enrollmentCode });
      expect(again.status).not.toBe(200);
    } finally {
      await attacker.context.close();
    }
    const state = body(await pagePost(page, "/api/state", {}));
    expect(state.passkeys).toHaveLength(1);
    expectNoCommand();
  });
});
