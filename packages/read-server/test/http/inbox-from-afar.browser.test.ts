/**
 * The person's inbox from afar (ADR 0073), on a phone: `serve --http` behind the README's Caddy,
 * one origin (the OAuth issuer) for sign-in, MCP, `/approve` and `/inbox`. The phone (Chromium at
 * 390×844 with a virtual authenticator) signs a client in by URL, which gives it the sign-in
 * passkey; that client asks for a lease, and on the simulator two agents in two environments wait
 * on an approval and a third on a question. The inbox shows nothing until the passkey unlocks it,
 * then lists all four; one ceremony approves both approvals and the simulator records exactly one
 * response for each; the question is then answered with one of its options.
 */
import {
  type AuthenticatorPage,
  openWithAuthenticator,
  pageWidth,
} from "@t3-connector/test-support/chromium";
import { answerQuestionWithFirstOption, outcomeResults } from "@t3-connector/test-support/inbox-page-steps";
import { addInboxProjects, addWaitingThreads } from "@t3-connector/test-support/inbox-world";
import { README_PROXIES } from "@t3-connector/test-support/reverse-proxy";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type IssuerWorld, say, startIssuerWorld } from "./support/issuer-world.js";
import { call, type SignedIn, signInByUrl, structured } from "./support/url-writes-loop.js";

const PHONE = { width: 390, height: 844 };
const CADDY = README_PROXIES[0];

let world: IssuerWorld;
let phone: AuthenticatorPage;
let writer: SignedIn;

/** What each environment's simulator received as answers to its agents' requests. */
function responses(alias: string) {
  return world.gate.world
    .env(alias)
    .model.receivedCommands.filter((command) => command.type === "runtime-request.respond");
}

/** The sign-in passkey's signature counter: it counts the phone's ceremonies. */
async function signCount(): Promise<number> {
  const [credential] = await phone.credentials();
  if (credential === undefined) throw new Error("the phone holds no passkey");
  return credential.signCount;
}

describe(`the inbox from afar, behind ${CADDY?.name}`, () => {
  beforeAll(async () => {
    if (CADDY === undefined) throw new Error("the README names no proxy");
    world = await startIssuerWorld(CADDY.start);
    phone = await openWithAuthenticator(world.browser, PHONE);
    // Signing the client in on the phone enrolls the sign-in passkey there: the one the inbox asks.
    writer = await signInByUrl(
      { serve: world.serve, callback: world.callback, signIn: phone },
      { scope: "t3:read t3:write", name: "inbox-client" },
    );
  }, 180_000);

  afterAll(async () => {
    await writer?.client.close();
    await phone?.context.close();
    await world?.close();
  });

  it("unlocks with the sign-in passkey, lists all four and approves both approvals in one ceremony, then answers the question", async () => {
    expect(await phone.credentials()).toHaveLength(1);
    const { issuer, gate } = world;
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
    // Waits in the page on the listing itself, not on a polling clock.
    await items.nth(3).waitFor({ state: "attached" });
    expect(await items.count()).toBe(4);
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
    expect(await outcomeResults(page)).toEqual(["sent", "sent"]);
    expect(responses("alpha")).toHaveLength(1);
    expect(responses("beta")).toHaveLength(1);
    // Approved, they wait no more; the question and the lease still do.
    await approvals.first().waitFor({ state: "detached" });
    expect(await items.count()).toBe(2);

    // The question, answered with one of its options, in a ceremony of its own.
    expect(await answerQuestionWithFirstOption(page)).toBe("sent");
    expect(responses("alpha")).toHaveLength(1);
    expect(responses("beta")).toHaveLength(2);
  }, 120_000);
});
