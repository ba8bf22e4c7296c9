/**
 * Issue 10's "done when", through the real `t3-connector-write bridge` spawned over stdio and the
 * real gate over the simulator: a client proposes (purpose, one action), waits, and learns the
 * human's decision as soon as it is made: denied on a Deny, approved with the lease after a passkey
 * approval in headless Chromium (virtual authenticator), pending when its wait runs out. A client
 * that declared URL-mode elicitation gets the link through `elicitation/create`. The test plays
 * the page through the page's own API and event stream; nothing grants a lease directly.
 * Progress reports during the wait are checked in process with a short injected interval
 * (write-bridge/test/bridge/reports-progress-while-the-person-decides.test.ts), not here at 5 s each.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { Client, type ClientOptions } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  ElicitationCompleteNotificationSchema,
  ElicitRequestSchema,
  type ElicitRequestURLParams,
} from "@modelcontextprotocol/sdk/types.js";
import { builtBin } from "@t3-connector/test-support/built-bins";
import {
  type AuthenticatorPage,
  launchChromium,
  openWithAuthenticator,
  pagePost,
  registerInPage,
  signInPage,
} from "@t3-connector/test-support/chromium";
import { openEventStream } from "@t3-connector/test-support/event-stream-client";
import { postJson } from "@t3-connector/test-support/gate-http";
import { pageOrigin, type RealGate, startRealGate } from "@t3-connector/test-support/real-gate";
import { IDLE_THREAD } from "@t3-connector/test-support/sim-world";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AUDIT_FILE } from "../../src/audit/index.js";
import { type Body, structured, type ToolAnswer, textOf } from "../browser/support/gate-with-bridges.js";

const BIN = builtBin("t3-connector-write");

let browser: Browser | undefined;
let real: RealGate | undefined;
let tab: AuthenticatorPage | undefined;
const clients: Client[] = [];

beforeAll(async () => {
  browser = await launchChromium();
  real = await startRealGate();
  tab = await openWithAuthenticator(browser);
}, 180_000);

afterAll(async () => {
  for (const client of clients) await client.close();
  await tab?.context.close();
  await browser?.close();
  await real?.close();
});

function gate(): RealGate {
  if (real === undefined) throw new Error("setup did not finish");
  return real;
}

/** A client of the spawned bridge; `capabilities` is what it declares at initialize. */
async function spawnClient(name: string, capabilities: ClientOptions = {}): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, "bridge"],
    env: { ...(process.env as Record<string, string>), T3_CONNECTOR_WRITE_CONFIG: gate().config.path },
    stderr: "pipe",
  });
  const client = new Client({ name, version: "9.9.9" }, capabilities);
  clients.push(client);
  await client.connect(transport);
  return client;
}

const call = (client: Client, args: Body) =>
  client.callTool({ name: "t3_pedir_aprovacao", arguments: args }, undefined, {
    timeout: 400_000,
  }) as Promise<ToolAnswer>;

/** The page's POST, with the gate's Origin (the page's own calls, over a real socket). */
async function pageCall(path: string, body: Body): Promise<{ status: number; body: Body }> {
  const answer = await postJson(gate().gate.port, path, body, { origin: pageOrigin(gate().gate) });
  return { status: answer.status, body: answer.body as Body };
}

async function closeLease(): Promise<void> {
  expect((await pageCall("/api/revoke", {})).status).toBe(200);
}

describe("t3_pedir_aprovacao waits for the human's decision", () => {
  it("returns denied promptly after the person denies, and nothing is granted", async () => {
    await closeLease();
    const client = await spawnClient("deny-client");
    const events = await openEventStream(gate().gate.port);
    try {
      const waiting = call(client, { purpose: "tidy the sidebar", actions: ["thread.pin"], waitSeconds: 60 });
      const { requestId } = (await events.next("request")).data as { requestId: string };
      const view = await pageCall("/api/requests/view", { requestId });
      expect(view.body).toMatchObject({
        purpose: "tidy the sidebar",
        client: { name: "deny-client", version: "9.9.9" },
        proposal: { actions: ["thread.pin"] },
      });
      const deniedAt = performance.now();
      expect(await pageCall("/api/requests/deny", { requestId })).toEqual({
        status: 200,
        body: { denied: true },
      });
      const answer = await waiting;
      const latencyMs = performance.now() - deniedAt;
      expect(answer.isError, textOf(answer)).toBeFalsy();
      expect(structured(answer)).toMatchObject({ authorized: false, decision: "denied", requestId });
      expect(structured(answer).nextStep).toMatch(/denied/);
      expect(latencyMs).toBeLessThan(1_000);
      process.stderr.write(`approval wait: denied answered ${latencyMs.toFixed(0)} ms after the deny POST\n`);
      expect(gate().gate.lease.list()).toEqual([]);
    } finally {
      events.close();
    }
  }, 60_000);

  it("returns pending when the wait runs out, and keeps waiting on the same request without a new one", async () => {
    await closeLease();
    const client = await spawnClient("patient-client");
    const first = structured(await call(client, { waitSeconds: 1 }));
    expect(first).toMatchObject({ authorized: false, decision: "pending" });
    expect(first.approvalUrl).toBe(`${pageOrigin(gate().gate)}/?request=${first.requestId}`);
    expect(first.scopeFingerprint).toMatch(/^[0-9a-f]{64}$/);
    const pendingBefore = (await pageCall("/api/state", {})).body.pendingRequests as Body[];
    const again = structured(await call(client, { requestId: first.requestId, waitSeconds: 1 }));
    expect(again).toMatchObject({
      decision: "pending",
      requestId: first.requestId,
      approvalUrl: first.approvalUrl,
    });
    expect((await pageCall("/api/state", {})).body.pendingRequests).toEqual(pendingBefore);
    // The same bridge asking anew with nothing proposed is answered the same request (ADR 0040)…
    expect(structured(await call(client, {}))).toMatchObject({ requestId: first.requestId });
    expect((await pageCall("/api/state", {})).body.pendingRequests).toEqual(pendingBefore);
    // …and asking for something replaces its own older request.
    const fresh = structured(await call(client, { actions: ["thread.pin"] }));
    expect(fresh.requestId).not.toBe(first.requestId);
    expect(structured(await call(client, { requestId: first.requestId }))).toMatchObject({
      decision: "superseded",
    });
    expect((await pageCall("/api/requests/view", { requestId: first.requestId })).body).toEqual({
      error: "request_superseded",
    });
  }, 60_000);

  it("refuses a proposal naming what the gate does not list, with the valid names, and creates no request", async () => {
    await closeLease();
    const client = await spawnClient("sloppy-client");
    const before = ((await pageCall("/api/state", {})).body.pendingRequests as Body[]).length;
    const answer = await call(client, { environments: ["gamma"], actions: ["thread.explode"] });
    expect(answer.isError).toBe(true);
    expect(textOf(answer)).toMatch(
      /^proposal_invalid: .*"gamma".*"thread\.explode".*Valid environments: alpha, beta/,
    );
    expect(((await pageCall("/api/state", {})).body.pendingRequests as Body[]).length).toBe(before);
  }, 60_000);

  it("returns the lease within a second of a passkey approval of only what was proposed; writing outside it is scope_denied", async () => {
    if (tab === undefined) throw new Error("setup did not finish");
    await closeLease();
    const page = tab.page;
    await page.goto(`${pageOrigin(gate().gate)}/`);
    // Enrollment with the code the gate printed, and a name.
    const begun = await pagePost(page, "/api/enrollment/options", {
      code: gate().enrollmentCode,
      name: "Test key",
    });
    expect(begun.status).toBe(200);
    const registration = await registerInPage(page, begun.body.options);
    const finished = await pagePost(page, "/api/enrollment/finish", {
      registrationId: begun.body.registrationId,
      response: registration,
    });
    expect(finished.status).toBe(200);
    const state = await pageCall("/api/state", {});
    expect(state.body.passkeys).toEqual([expect.objectContaining({ name: "Test key" })]);
    await gate().gate.audit.settled();
    const audit = await readFile(join(gate().config.stateDir, AUDIT_FILE), "utf8");
    expect(audit).toContain(
      `"event":"passkey_enrolled","credentialId":"${(finished.body.passkey as Body).id}","first":true`,
    );
    expect(audit).not.toContain(gate().enrollmentCode);

    const client = await spawnClient("release-client");
    const events = await openEventStream(gate().gate.port);
    try {
      const waiting = call(client, {
        purpose: "pin the release thread",
        actions: ["thread.pin"],
        waitSeconds: 30,
      });
      const { requestId } = (await events.next("request")).data as { requestId: string };
      // Another client's request, pending while this one is approved: it stays pending (ADR 0028).
      const other = (await gate().relay({ op: "request_approval" })).body as { requestId: string };
      const view = await pagePost(page, "/api/requests/view", { requestId });
      const preselected = view.body.preselected as { environments: { actions: string[] }[] };
      expect(preselected.environments.length).toBeGreaterThan(0);
      for (const chosen of preselected.environments) expect(chosen.actions).toEqual(["thread.pin"]);
      // The person approves what was ticked: exactly the proposal.
      const options = await pagePost(page, "/api/requests/options", { requestId, selection: preselected });
      expect(options.status).toBe(200);
      const assertion = await signInPage(page, options.body.options);
      const approvedAt = performance.now();
      const granted = await pagePost(page, "/api/requests/approve", { requestId, response: assertion });
      expect(granted.body).toMatchObject({ active: true });
      const answer = structured(await waiting);
      const latencyMs = performance.now() - approvedAt;
      expect(answer).toMatchObject({
        authorized: true,
        decision: "approved",
        leaseId: granted.body.leaseId,
        scopeFingerprint: options.body.scopeFingerprint,
      });
      expect(latencyMs).toBeLessThan(1_000);
      const otherView = await pageCall("/api/requests/view", { requestId: other.requestId });
      expect(otherView).toMatchObject({ status: 200, body: { requestId: other.requestId } });
      expect(await pageCall("/api/requests/view", { requestId })).toEqual({
        status: 410,
        body: { error: "request_used" },
      });
      process.stderr.write(`approval wait: lease answered ${latencyMs.toFixed(0)} ms after the approval\n`);

      const archive = await client.callTool({
        name: "t3_escrever_thread_archive",
        arguments: {
          leaseId: answer.leaseId,
          environment: "alpha",
          operationId: "op-archive-outside",
          input: { threadId: IDLE_THREAD },
        },
      });
      expect(archive.isError).toBe(true);
      expect(textOf(archive as ToolAnswer)).toMatch(/^scope_denied/);
      expect(gate().world.commandCount()).toBe(0);
    } finally {
      events.close();
    }
  }, 120_000);

  it("presents the link through URL elicitation to a client that declared it, and still returns it", async () => {
    await closeLease();
    const client = await spawnClient("elicit-client", { capabilities: { elicitation: { url: {} } } });
    const elicited = new Promise<ElicitRequestURLParams>((resolve) => {
      client.setRequestHandler(ElicitRequestSchema, (request) => {
        resolve(request.params as ElicitRequestURLParams);
        return { action: "accept" };
      });
    });
    const completed = new Promise<string>((resolve) => {
      client.setNotificationHandler(ElicitationCompleteNotificationSchema, (notification) =>
        resolve(notification.params.elicitationId),
      );
    });
    const waiting = call(client, { purpose: "rename a thread", actions: ["thread.title"], waitSeconds: 30 });
    const params = await elicited;
    expect(params.mode).toBe("url");
    const requestId = new URL(params.url).searchParams.get("request") ?? "";
    expect(params.url).toBe(`${pageOrigin(gate().gate)}/?request=${requestId}`);
    expect(params.elicitationId).toBe(requestId);
    expect(await pageCall("/api/requests/deny", { requestId })).toMatchObject({ status: 200 });
    const answer = structured(await waiting);
    expect(answer).toMatchObject({ decision: "denied", elicitation: "accept", requestId });
    expect(await completed).toBe(requestId);

    // Without waiting the link comes back in the result as well.
    const quick = structured(await call(client, {}));
    expect(quick).toMatchObject({ decision: "pending", elicitation: "accept" });
    expect(quick.approvalUrl).toBe(`${pageOrigin(gate().gate)}/?request=${quick.requestId}`);
  }, 60_000);
  it("audits a refused removal and a removal of the named passkey by id and code only", async () => {
    if (tab === undefined) throw new Error("setup did not finish");
    const page = tab.page;
    const [passkey] = (await pageCall("/api/state", {})).body.passkeys as Array<{ credentialId: string }>;
    if (passkey === undefined) throw new Error("the approval test enrolled no passkey");
    // A ticket for another purpose does not remove anything; the refusal is audited.
    const wrong = await pagePost(page, "/api/passkeys/step-up", { purpose: "enroll" });
    const wrongProof = await signInPage(page, wrong.body.options);
    const refused = await pagePost(page, "/api/passkeys/remove", {
      credentialId: passkey.credentialId,
      ticketId: wrong.body.ticketId,
      response: wrongProof,
    });
    expect(refused.body).toEqual({ error: "step_up_invalid" });
    const ticket = await pagePost(page, "/api/passkeys/step-up", {
      purpose: "remove",
      credentialId: passkey.credentialId,
    });
    const proof = await signInPage(page, ticket.body.options);
    const removed = await pagePost(page, "/api/passkeys/remove", {
      credentialId: passkey.credentialId,
      ticketId: ticket.body.ticketId,
      response: proof,
    });
    expect(removed.body).toEqual({ passkeys: [] });
    await gate().gate.audit.settled();
    const audit = await readFile(join(gate().config.stateDir, AUDIT_FILE), "utf8");
    expect(audit).toContain('"event":"passkey_removal_failed","code":"step_up_invalid"');
    expect(audit).toContain(`"event":"passkey_removed","credentialId":"${passkey.credentialId}"`);
    expect(audit).not.toContain("Test key");
  }, 60_000);
});
