/**
 * Issue 11 item 2 in a real browser: a page on another origin keeps firing `no-cors` POSTs and
 * `<img>` GETs at the gate (anything any site can do), and the human's own page, in the same
 * Chromium, still loads and revokes the lease. Every request shares the loopback address.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { launchChromium } from "@t3-connector/test-support/chromium";
import { type SimGate, startSimGate } from "@t3-connector/test-support/sim-gate";
import type { Browser, BrowserContext } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";

/** Requests the foreign page must have sent before the real page opens (the old limit was 60). */
const FLOOD_BEFORE = 300;

let browser: Browser;
let gate: SimGate | undefined;
let foreign: Server | undefined;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  browser = await launchChromium();
}, 30_000);
afterAll(async () => {
  await browser?.close();
});
afterEach(async () => {
  for (const context of contexts.splice(0)) await context.close();
  await gate?.close();
  gate = undefined;
  await new Promise((resolve) => (foreign === undefined ? resolve(undefined) : foreign.close(resolve)));
  foreign = undefined;
});

/** The attacker's page: floods the gate until the tab closes, counting what it sent. */
function attackerPage(gateOrigin: string): string {
  return `<!doctype html><html><body><script>
    const gate = ${JSON.stringify(gateOrigin)};
    const paths = ["/api/revoke", "/api/state", "/api/requests/approve", "/relay", "/api/enrollment/options"];
    window.sent = 0;
    async function flood() {
      for (;;) {
        const batch = [];
        for (let i = 0; i < 20; i++) {
          const path = paths[(window.sent + i) % paths.length];
          batch.push(fetch(gate + path, { method: "POST", mode: "no-cors", body: "{}" }).catch(() => null));
          const img = new Image();
          img.src = gate + "/app.css?" + (window.sent + i);
        }
        await Promise.all(batch);
        window.sent += batch.length;
      }
    }
    flood();
  </script></body></html>`;
}

async function startForeignSite(gateOrigin: string): Promise<string> {
  const server = createServer((_request, response) => {
    response.writeHead(200, { "content-type": "text/html" });
    response.end(attackerPage(gateOrigin));
  });
  foreign = server;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

describe("a foreign page flooding the gate from the same browser", () => {
  it("does not stop the real page from loading and revoking the lease", async () => {
    gate = await startSimGate({
      environments: [{ alias: "alpha", projects: [{ id: "p-1", title: "API", workspaceRoot: "/work/api" }] }],
      serve: true,
    });
    gate.keeper.grant({
      scope: { scopeVersion: 2, runtimeMode: "full-access", environments: [] },
      scopeFingerprint: "flood-test",
      credentialId: "flood-test",
    });

    const attackerContext = await browser.newContext();
    contexts.push(attackerContext);
    const attacker = await attackerContext.newPage();
    // "commit": the flood keeps loading images, so the attacker page never fires "load".
    await attacker.goto(await startForeignSite(gate.origin), { waitUntil: "commit" });
    await attacker.waitForFunction(
      (n) => (globalThis as unknown as { sent: number }).sent >= n,
      FLOOD_BEFORE,
      {
        timeout: 15_000,
      },
    );

    const humanContext = await browser.newContext();
    contexts.push(humanContext);
    const page = await humanContext.newPage();
    await page.goto(`${gate.origin}/`);
    await page.waitForSelector("body[data-ready=true]");
    expect(await page.locator("#lease").isHidden()).toBe(false);
    await page.click("[data-testid=revoke]");
    await page.locator("[data-testid=message]").filter({ hasText: "Every lease revoked." }).waitFor();
    expect(gate.keeper.list()).toEqual([]);

    // The flood went on the whole time.
    const sent = await attacker.evaluate(() => (globalThis as unknown as { sent: number }).sent);
    expect(sent).toBeGreaterThan(FLOOD_BEFORE);
  }, 60_000);
});
