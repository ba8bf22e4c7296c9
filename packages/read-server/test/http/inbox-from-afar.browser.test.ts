/**
 * The person's inbox from afar (ADR 0073), on a phone: `serve --http` behind the README's Caddy,
 * one origin (the OAuth issuer) for sign-in, MCP, `/approve` and `/inbox`. The phone (Chromium at
 * 390×844 with a virtual authenticator) signs a client in by URL, which gives it the sign-in
 * passkey; that client asks for a lease, and on the simulator two agents in two environments wait
 * on an approval and a third on a question. The inbox shows nothing until the passkey unlocks it,
 * then lists all four; one ceremony approves both approvals and the simulator records exactly one
 * response for each; the question is then answered with one of its options.
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import {
  type AuthenticatorPage,
  launchChromium,
  openWithAuthenticator,
  pageWidth,
} from "@t3-connector/test-support/chromium";
import { freePort } from "@t3-connector/test-support/free-port";
import { addInboxProjects, addWaitingThreads } from "@t3-connector/test-support/inbox-world";
import {
  type CallbackServer,
  type OAuthServe,
  startCallbackServer,
  startOAuthServe,
} from "@t3-connector/test-support/oauth-serve";
import { type RealGate, startRealGate } from "@t3-connector/test-support/real-gate";
import { README_PROXIES, type ReverseProxy } from "@t3-connector/test-support/reverse-proxy";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, type SignedIn, signInByUrl, structured } from "./support/url-writes-loop.js";

const PHONE = { width: 390, height: 844 };
const CADDY = README_PROXIES[0];

let gate: RealGate;
let serve: OAuthServe;
let proxy: ReverseProxy;
let callback: CallbackServer;
let phone: AuthenticatorPage;
let browser: Awaited<ReturnType<typeof launchChromium>>;
let writer: SignedIn;
let issuer: string;
let oauthStateDir: string;

/** What each environment's simulator received as answers to its agents' requests. */
function responses(alias: string) {
  return gate.world
    .env(alias)
    .model.receivedCommands.filter((command) => command.type === "runtime-request.respond");
}

/** The sign-in passkey's signature counter: it counts the phone's ceremonies. */
async function signCount(): Promise<number> {
  const [credential] = await phone.credentials();
  if (credential === undefined) throw new Error("the phone holds no passkey");
  return credential.signCount;
}

/** Waits for the page's status line to say `text`; a different outcome fails with what it says. */
async function say(page: Page, text: string): Promise<void> {
  const line = page.locator("[data-testid=message]");
  await line.filter({ hasText: /./ }).waitFor();
  await expect.poll(async () => (await line.textContent()) ?? "").toContain(text);
}

describe(`the inbox from afar, behind ${CADDY?.name}`, () => {
  beforeAll(async () => {
    if (CADDY === undefined) throw new Error("the README names no proxy");
    const proxyPort = await freePort();
    issuer = `http://localhost:${proxyPort}`;
    oauthStateDir = path.join(await mkdtemp(path.join(os.tmpdir(), "t3c-inbox-afar-")), "oauth");
    [gate, callback, browser] = await Promise.all([
      startRealGate({ remoteApproval: { origin: issuer, oauthStateDir } }),
      startCallbackServer(),
      launchChromium(),
    ]);
    serve = await startOAuthServe(
      { issuer, stateDir: oauthStateDir },
      { env: { T3_CONNECTOR_WRITE_CONFIG: gate.config.path } },
    );
    proxy = await CADDY.start(proxyPort, Number(new URL(serve.ready.healthz).port));
    phone = await openWithAuthenticator(browser, PHONE);
    // Signing the client in on the phone enrolls the sign-in passkey there: the one the inbox asks.
    writer = await signInByUrl(
      { serve, callback, signIn: phone },
      { scope: "t3:read t3:write", name: "inbox-client" },
    );
  }, 180_000);

  afterAll(async () => {
    await writer?.client.close();
    await phone?.context.close();
    await browser?.close();
    await proxy?.close();
    await callback?.close();
    await serve?.close();
    await gate?.close();
    if (oauthStateDir !== undefined) await rm(path.dirname(oauthStateDir), { recursive: true, force: true });
  });

  it("unlocks with the sign-in passkey, lists all four and approves both approvals in one ceremony, then answers the question", async () => {
    expect(await phone.credentials()).toHaveLength(1);
    addInboxProjects(gate.world.sim);
    addWaitingThreads(gate.world.sim, Date.now() - 30 * 60_000);
    const asked = structured(
      await call(writer.client, "t3_pedir_aprovacao", {
        purpose: "pin the deploy thread",
        actions: ["thread.pin"],
      }),
    );
    expect(new URL(asked.approvalUrl as string).origin).toBe(issuer);

    const page = phone.page;
    await page.goto(`${issuer}/inbox`);
    await page.waitForSelector("body[data-ready=true]");
    // From afar nothing is listed before the passkey: the page asks for it.
    expect(await page.locator("[data-testid=item]").count()).toBe(0);
    expect(await page.isVisible("[data-testid=unlock]")).toBe(true);
    const unlockedFrom = await signCount();
    await page.click("[data-testid=unlock]");
    const items = page.locator("[data-testid=item]");
    await expect.poll(() => items.count()).toBe(4);
    expect(await signCount()).toBe(unlockedFrom + 1);
    expect(await page.isVisible("[data-testid=unlock]")).toBe(false);
    const approvals = page.locator("[data-testid=item][data-kind=approval]");
    expect(await approvals.count()).toBe(2);
    expect(await page.locator("[data-testid=item][data-kind=question]").count()).toBe(1);
    expect(await page.locator("[data-testid=item][data-kind=lease]").count()).toBe(1);
    // The lease item links to its approval page on the issuer's origin.
    expect(await page.locator("[data-testid=lease-link]").getAttribute("href")).toBe(asked.approvalUrl);
    expect((await pageWidth(page)).overflow).toBe(0);

    for (const approval of await approvals.all())
      await approval.locator("[data-testid=choice-accept]").check();
    expect(await page.locator("[data-testid=set-item]").allTextContents()).toEqual([
      "Approve once: Deploy (alpha)",
      "Approve once: Run tests (beta)",
    ]);
    const ceremoniesBefore = await signCount();
    await page.click("[data-testid=decide]");
    await say(page, "Decided.");
    // One ceremony for the whole set: the passkey signed once.
    expect(await signCount()).toBe(ceremoniesBefore + 1);
    expect(
      await page
        .locator("[data-testid=outcome]")
        .evaluateAll((rows) =>
          rows.map((row) => (row as unknown as { dataset: { result: string } }).dataset.result),
        ),
    ).toEqual(["sent", "sent"]);
    expect(responses("alpha")).toHaveLength(1);
    expect(responses("beta")).toHaveLength(1);
    // Approved, they wait no more; the question and the lease still do.
    await expect.poll(() => approvals.count()).toBe(0);
    expect(await items.count()).toBe(2);

    // The question, answered with one of its options, in a ceremony of its own.
    const question = page.locator("[data-testid=item][data-kind=question]");
    await question.locator("[data-testid=option]").first().check();
    const questionId = await question.getAttribute("id");
    await page.click("[data-testid=decide]");
    const answered = page.locator(`[data-testid=outcome][data-item-id="${questionId}"]`);
    await answered.waitFor();
    expect(await answered.getAttribute("data-result")).toBe("sent");
    expect(responses("alpha")).toHaveLength(1);
    expect(responses("beta")).toHaveLength(2);
  }, 120_000);
});
