import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import {
  type AuthenticatorPage,
  pagePost,
  registerInPage,
  signInPage,
} from "@t3-connector/test-support/chromium";
import { ENROLLMENT_CODE, type SimGate } from "@t3-connector/test-support/sim-gate";
import {
  ACTION_IDS,
  type ActionId,
  DESTRUCTIVE_ACTIONS,
  FOLDER_NAMING_ACTIONS,
} from "@t3-connector/write-engine/actions";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { leaseVerdict } from "../support/lease-verdict.js";
import { enrollThroughThePage, useGatePage, waitForMessage } from "./support/gate-page.js";

const PROJECTS = [
  { id: "project-api", title: "API <b>server</b>", workspaceRoot: "/work/api" },
  { id: "project-web", title: "Web client", workspaceRoot: "/work/web" },
];

let gate: SimGate;
let tab: AuthenticatorPage;
const gatePage = useGatePage();

async function open(): Promise<Page> {
  ({ gate, tab } = await gatePage.open({ projects: PROJECTS }));
  return tab.page;
}

/** The page's enrollment with this file's default passkey name. */
const enroll = (page: Page, name = "work laptop") => enrollThroughThePage(page, name);

function writeRequest(leaseId: string, projectIds: string[], action: ActionId = "thread.send") {
  const environmentId = gate.sim.environment("alpha").environmentId;
  return {
    stage: "scope" as const,
    leaseId,
    environmentId,
    destination: `t3://${environmentId}`,
    action,
    projectIds,
  };
}

describe("passkey approval in a real browser", () => {
  it("enrolls with the printed code, approves a lease narrowed to one project, and the lease covers exactly that", async () => {
    const page = await open();
    await enroll(page);
    expect(gate.passkeys.list()).toHaveLength(1);
    // Named at enrollment, and listed by that name.
    expect(gate.passkeys.list()[0]?.name).toBe("work laptop");
    await page.locator("[data-testid=passkey]", { hasText: "work laptop" }).waitFor();
    // The code field is gone once a passkey exists; another passkey needs an assertion instead.
    expect(await page.locator("[data-testid=enroll-code]").isVisible()).toBe(false);
    expect(await page.locator("[data-testid=add-passkey]").isVisible()).toBe(true);
    expect((await tab.credentials()).length).toBe(1);
    const credentialsFile = await stat(join(gate.stateDir, "credentials.json"));
    expect(credentialsFile.mode & 0o777).toBe(0o600);

    const link = await gate.desk.request({});
    expect(link.covered).toEqual([
      expect.objectContaining({ alias: "alpha", projectCount: 2, actionCount: ACTION_IDS.length }),
    ]);
    await page.goto(link.url);
    await page.waitForSelector("body[data-ready=true]");
    // The project title arrives as text, never as markup.
    expect(await page.locator("#request-scope").textContent()).toContain("API <b>server</b>");
    expect(await page.locator("[data-testid=request-fingerprint]").textContent()).toMatch(/^[0-9a-f]{64}$/);
    await page.uncheck("[data-testid=project-project-web]");
    await page.uncheck('[data-testid="action-thread.archive"]');
    await page.click("[data-testid=approve]");
    await waitForMessage(page, "Lease granted.");

    const lease = gate.keeper.list()[0] ?? null;
    expect(lease).not.toBeNull();
    if (lease === null) return;
    // The signature counter the authenticator reported is stored.
    const [authenticatorKey] = await tab.credentials();
    const stored = JSON.parse(await readFile(join(gate.stateDir, "credentials.json"), "utf8"));
    expect(stored[0].counter).toBe(authenticatorKey?.signCount);
    expect(lease.credentialId).toBe(stored[0].id);
    expect(lease.scope.environments).toHaveLength(1);
    const grant = lease.scope.environments[0];
    expect(grant?.projects).toEqual([
      { id: "project-api", name: "API <b>server</b>", directory: "/work/api", workspaceRoots: ["/work/api"] },
    ]);
    expect(grant?.readProjectIds).toEqual(["project-api"]);
    // With no proposal the destructive and folder-naming actions start unticked; the person
    // unticked archive.
    expect(grant?.actions).toHaveLength(
      ACTION_IDS.length - DESTRUCTIVE_ACTIONS.length - FOLDER_NAMING_ACTIONS.length - 1,
    );
    for (const action of DESTRUCTIVE_ACTIONS) expect(grant?.actions).not.toContain(action);
    expect(grant?.actions).not.toContain("thread.archive");
    expect(leaseVerdict(gate.keeper, gate.clock, writeRequest(lease.leaseId, ["project-api"])).ok).toBe(true);
    expect(leaseVerdict(gate.keeper, gate.clock, writeRequest(lease.leaseId, ["project-web"]))).toMatchObject(
      {
        code: "scope_denied",
      },
    );
    expect(
      leaseVerdict(gate.keeper, gate.clock, writeRequest(lease.leaseId, ["project-api"], "thread.archive")),
    ).toMatchObject({
      code: "scope_denied",
    });
    await page
      .locator("[data-testid=countdown]")
      .filter({ hasText: /^(60:00|59:\d\d)$/ })
      .waitFor();
    expect(gate.logs.some((line) => line.startsWith("passkey enrolled"))).toBe(true);
    expect(gate.logs.join("\n")).not.toContain(ENROLLMENT_CODE);
  });

  it("refuses the first enrollment without the code, with a wrong code, and with a used code", async () => {
    const page = await open();
    await page.click("[data-testid=enroll-submit]");
    // Said in words beside the button pressed, not as the gate's code.
    await page
      .locator("[data-testid=enroll-error]")
      .filter({ hasText: "Registration failed. Type the enrollment code printed on the gate's terminal." })
      .waitFor();
    expect((await pagePost(page, "/api/enrollment/options", { code: "AAAA-BBBB-CCCC-DDDD" })).body).toEqual({
      error: "enrollment_code_invalid",
    });

    // Two ceremonies opened with the code: the first to finish uses it, the second is refused.
    const first = await pagePost(page, "/api/enrollment/options", { code: ENROLLMENT_CODE });
    const second = await pagePost(page, "/api/enrollment/options", { code: ENROLLMENT_CODE });
    const firstResponse = await registerInPage(page, first.body.options);
    const secondResponse = await registerInPage(page, second.body.options);
    expect(
      (
        await pagePost(page, "/api/enrollment/finish", {
          registrationId: first.body.registrationId,
          response: firstResponse,
        })
      ).status,
    ).toBe(200);
    const refused = await pagePost(page, "/api/enrollment/finish", {
      registrationId: second.body.registrationId,
      response: secondResponse,
    });
    expect(refused.body).toEqual({ error: "enrollment_code_invalid" });
    expect(gate.passkeys.list()).toHaveLength(1);

    // With a passkey enrolled, the code no longer opens anything, and once the passkey is gone the used code still does not.
    expect((await pagePost(page, "/api/enrollment/options", { code: ENROLLMENT_CODE })).body).toEqual({
      error: "step_up_required",
    });
    const [only] = gate.passkeys.list();
    await gate.passkeys.remove(only?.id ?? "");
    expect((await pagePost(page, "/api/enrollment/options", { code: ENROLLMENT_CODE })).body).toEqual({
      error: "enrollment_code_invalid",
    });
    expect(gate.passkeys.hasAny()).toBe(false);
  });

  it("adds a second passkey only after an assertion with the first, and removes one only with an assertion", async () => {
    const page = await open();
    await enroll(page);
    const [firstKey] = gate.passkeys.list();
    const stepUp = await pagePost(page, "/api/passkeys/step-up", { purpose: "enroll" });
    const proof = await signInPage(page, stepUp.body.options);
    const begun = await pagePost(page, "/api/enrollment/options", {
      ticketId: stepUp.body.ticketId,
      response: proof,
    });
    expect(begun.status).toBe(200);
    // The ticket served once.
    expect(
      (await pagePost(page, "/api/enrollment/options", { ticketId: stepUp.body.ticketId, response: proof }))
        .body,
    ).toEqual({
      error: "step_up_invalid",
    });
    // The second passkey lives on another device: the first one's authenticator is gone.
    await tab.replaceAuthenticator();
    const registration = await registerInPage(page, begun.body.options);
    await pagePost(page, "/api/enrollment/finish", {
      registrationId: begun.body.registrationId,
      response: registration,
    });
    expect(gate.passkeys.list()).toHaveLength(2);

    // A ticket issued to enroll cannot remove a passkey.
    const wrongPurpose = await pagePost(page, "/api/passkeys/step-up", { purpose: "enroll" });
    const wrongProof = await signInPage(page, wrongPurpose.body.options);
    const misuse = await pagePost(page, "/api/passkeys/remove", {
      credentialId: firstKey?.id,
      ticketId: wrongPurpose.body.ticketId,
      response: wrongProof,
    });
    expect(misuse.body).toEqual({ error: "step_up_invalid" });
    expect(gate.passkeys.list()).toHaveLength(2);

    await page.reload();
    await page.waitForSelector("body[data-ready=true]");
    // The new device's passkey authorizes removing the first one.
    const firstRow = page.locator(`[data-testid=passkey][data-credential="${firstKey?.id}"]`);
    expect(await firstRow.textContent()).toContain("work laptop");
    await firstRow.locator("button").click();
    await waitForMessage(page, "Passkey removed.");
    expect(gate.passkeys.list().map((passkey) => passkey.id)).not.toContain(firstKey?.id);
    expect(gate.passkeys.list()).toHaveLength(1);
  });

  it("refuses a replayed assertion and an assertion made for another request", async () => {
    const page = await open();
    await enroll(page);
    const a = await gate.desk.request({});
    const b = await gate.desk.request({});
    await page.goto(a.url);
    await page.waitForSelector("body[data-ready=true]");
    const optionsA = await pagePost(page, "/api/requests/options", { requestId: a.requestId });
    const optionsB = await pagePost(page, "/api/requests/options", { requestId: b.requestId });
    // One challenge per request.
    expect((await pagePost(page, "/api/requests/options", { requestId: a.requestId })).body).toEqual({
      error: "challenge_already_issued",
    });
    const forB = await signInPage(page, optionsB.body.options);
    const crossed = await pagePost(page, "/api/requests/approve", { requestId: a.requestId, response: forB });
    expect(crossed.status).toBe(400);
    expect(crossed.body).toEqual({ error: "assertion_invalid" });
    expect(gate.keeper.list()).toEqual([]);
    // A was used up by the failed attempt: its own assertion cannot rescue it now.
    const forA = await signInPage(page, optionsA.body.options);
    expect(
      (await pagePost(page, "/api/requests/approve", { requestId: a.requestId, response: forA })).body,
    ).toEqual({
      error: "request_used",
    });

    const granted = await pagePost(page, "/api/requests/approve", { requestId: b.requestId, response: forB });
    expect(granted.body).toMatchObject({ active: true });
    const leaseId = gate.keeper.list()[0]?.leaseId;
    const replay = await pagePost(page, "/api/requests/approve", { requestId: b.requestId, response: forB });
    expect(replay.body).toEqual({ error: "request_used" });
    expect(gate.keeper.list()[0]?.leaseId).toBe(leaseId);

    // After a revoke, the same assertion on a fresh request grants nothing either.
    gate.keeper.closeAll("revoked");
    const c = await gate.desk.request({});
    await pagePost(page, "/api/requests/options", { requestId: c.requestId });
    expect(
      (await pagePost(page, "/api/requests/approve", { requestId: c.requestId, response: forB })).body,
    ).toEqual({
      error: "assertion_invalid",
    });
    expect(gate.keeper.list()).toEqual([]);
  });

  it("refuses an assertion whose signature counter went backwards (a cloned passkey)", async () => {
    const page = await open();
    await enroll(page);
    for (let round = 0; round < 2; round += 1) {
      const ticket = await pagePost(page, "/api/passkeys/step-up", { purpose: "enroll" });
      const proof = await signInPage(page, ticket.body.options);
      expect(
        (await pagePost(page, "/api/enrollment/options", { ticketId: ticket.body.ticketId, response: proof }))
          .status,
      ).toBe(200);
    }
    const [before] = await tab.credentials();
    expect(before?.signCount).toBeGreaterThanOrEqual(2);
    await tab.rewindSignCount(0);
    const link = await gate.desk.request({});
    const options = await pagePost(page, "/api/requests/options", { requestId: link.requestId });
    const cloned = await signInPage(page, options.body.options);
    const refused = await pagePost(page, "/api/requests/approve", {
      requestId: link.requestId,
      response: cloned,
    });
    expect(refused.body).toEqual({ error: "assertion_invalid" });
    expect(gate.keeper.list()).toEqual([]);

    // The same key with a counter ahead of the stored one is accepted: the refusal was the counter.
    await tab.rewindSignCount((before?.signCount ?? 0) + 10);
    const next = await gate.desk.request({});
    const nextOptions = await pagePost(page, "/api/requests/options", { requestId: next.requestId });
    const ahead = await signInPage(page, nextOptions.body.options);
    expect(
      (await pagePost(page, "/api/requests/approve", { requestId: next.requestId, response: ahead })).body,
    ).toMatchObject({
      active: true,
    });
  });

  it("grants nothing when the lease is revoked while the assertion is being verified", async () => {
    const page = await open();
    await enroll(page);
    const link = await gate.desk.request({});
    const options = await pagePost(page, "/api/requests/options", { requestId: link.requestId });
    const response = await signInPage(page, options.body.options);
    const approving = gate.desk.approve(link.requestId, response as never);
    gate.keeper.closeAll("revoked");
    await expect(approving).rejects.toMatchObject({ code: "request_superseded" });
    expect(gate.keeper.list()).toEqual([]);
  });

  it("grants once when the same assertion is sent twice at the same time", async () => {
    const page = await open();
    await enroll(page);
    const link = await gate.desk.request({});
    const options = await pagePost(page, "/api/requests/options", { requestId: link.requestId });
    const response = await signInPage(page, options.body.options);
    const grants: string[] = [];
    gate.keeper.onChange(({ lease, open }) => {
      if (open) grants.push(lease.leaseId);
    });
    const outcomes = await Promise.allSettled([
      gate.desk.approve(link.requestId, response as never),
      gate.desk.approve(link.requestId, response as never),
    ]);
    expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(["fulfilled", "rejected"]);
    expect(grants).toHaveLength(1);
  });

  it("closes the lease with the revoke button and on expiry of the injected clock", async () => {
    const page = await open();
    await enroll(page);
    const approveOnce = async () => {
      const link = await gate.desk.request({});
      await page.goto(link.url);
      await page.waitForSelector("body[data-ready=true]");
      await page.click("[data-testid=approve]");
      await waitForMessage(page, "Lease granted.");
      const lease = gate.keeper.list()[0] ?? null;
      if (lease === null) throw new Error("no lease was granted");
      return lease;
    };

    const first = await approveOnce();
    gate.keeper.recordWrite({
      leaseId: gate.keeper.list()[0]?.leaseId ?? "",
      at: new Date().toISOString(),
      environmentId: gate.sim.environment("alpha").environmentId,
      action: "thread.send",
      operationId: "op-visible-1",
      state: "completed",
    });
    await page.reload();
    await page.waitForSelector("body[data-ready=true]");
    expect(await page.locator("[data-testid=writes]").textContent()).toContain("op-visible-1");
    await page.click("[data-testid=revoke]");
    await waitForMessage(page, "Every lease revoked.");
    expect(gate.keeper.list()).toEqual([]);
    expect(leaseVerdict(gate.keeper, gate.clock, writeRequest(first.leaseId, ["project-api"]))).toMatchObject(
      {
        code: "lease_closed",
      },
    );
    // The page re-reads its state after the revoke (possibly behind a nudged read already in flight).
    await page.locator("#lease").waitFor({ state: "hidden" });

    const second = await approveOnce();
    gate.clock.offsetMs += 60 * 60_000;
    expect(
      leaseVerdict(gate.keeper, gate.clock, writeRequest(second.leaseId, ["project-api"])),
    ).toMatchObject({
      code: "lease_closed",
    });
    expect(gate.keeper.list()).toEqual([]);
  });
});
