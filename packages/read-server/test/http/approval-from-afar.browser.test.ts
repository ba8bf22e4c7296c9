/**
 * The whole loop from anywhere (ADR 0049, 0050), behind a real reverse proxy on loopback (Caddy,
 * then nginx, each with the README's rule):
 * one origin, the OAuth issuer, serves sign-in, MCP and the approval page. A client signs in by URL
 * with `t3:read t3:write` on a laptop, asks for a lease, and its approvalUrl is on the issuer's
 * origin; a "phone" (a second browser context at 390×844 with an authenticator of its own) adds a
 * passkey with a code from `t3-connector oauth enroll` and approves there with it; the client pins
 * once. A stdio bridge's request is approved there too. Every decision there needs the passkey.
 */
import { spawn } from "node:child_process";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { builtBin } from "@t3-connector/test-support/built-bins";
import {
  type AuthenticatorPage,
  type launchChromium,
  openWithAuthenticator,
  pageWidth,
} from "@t3-connector/test-support/chromium";
import type { CallbackServer, OAuthServe } from "@t3-connector/test-support/oauth-serve";
import type { RealGate } from "@t3-connector/test-support/real-gate";
import { README_PROXIES } from "@t3-connector/test-support/reverse-proxy";
import { IDLE_THREAD } from "@t3-connector/test-support/sim-world";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type IssuerWorld, say, startIssuerWorld } from "./support/issuer-world.js";
import { call, type SignedIn, signInByUrl, structured, textOf } from "./support/url-writes-loop.js";

let gate: RealGate;
let serve: OAuthServe;
let world: IssuerWorld;
let callback: CallbackServer;
let laptop: AuthenticatorPage;
let phone: AuthenticatorPage;
let browser: Awaited<ReturnType<typeof launchChromium>>;
let writer: SignedIn;
let issuer: string;

/** `t3-connector oauth enroll`, the built CLI, against serve's read config: answers the code. */
async function enrollCode(): Promise<string> {
  return (JSON.parse(await oauthCommand(["enroll"])) as { code: string }).code;
}

/** `t3-connector oauth …`, the built CLI, against serve's read config: answers its stdout. */
async function oauthCommand(args: string[]): Promise<string> {
  const child = spawn(process.execPath, [builtBin("t3-connector"), "oauth", ...args], {
    env: { ...process.env, T3_CONNECTOR_CONFIG: serve.configPath },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout.setEncoding("utf8").on("data", (text: string) => {
    out += text;
  });
  child.stderr.setEncoding("utf8").on("data", (text: string) => {
    err += text;
  });
  const code = await new Promise<number | null>((resolve) => child.once("close", resolve));
  expect(code, `t3-connector oauth ${args.join(" ")}: ${err}`).toBe(0);
  return out;
}

async function openOnPhone(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await page.waitForSelector("body[data-ready=true]");
}

describe.each(README_PROXIES)("approval from afar, behind $name", ({ start: startProxy }) => {
  beforeAll(async () => {
    world = await startIssuerWorld(startProxy);
    ({ issuer, gate, serve, callback, browser } = world);
    laptop = await openWithAuthenticator(browser);
    phone = await openWithAuthenticator(browser, { width: 390, height: 844 });
    writer = await signInByUrl(
      { serve, callback, signIn: laptop },
      { scope: "t3:read t3:write", name: "phone-loop" },
    );
  }, 180_000);

  afterAll(async () => {
    await writer?.client.close();
    await laptop?.context.close();
    await phone?.context.close();
    await world?.close();
  });

  it("serves sign-in, MCP and the approval page on the issuer's one origin", async () => {
    expect(serve.mcpUrl).toBe(`${issuer}/mcp`);
    expect(serve.stderr()).toContain(`the approval page answers at ${issuer}/approve`);
    const page = await fetch(`${issuer}/approve?request=nothing`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(page.headers.get("x-frame-options")).toBe("DENY");
  });

  it("gives an approvalUrl on the issuer's origin; a phone adds a passkey with oauth enroll and approves; the pin lands once", async () => {
    const purpose = "pin the idle thread while I am out";
    const asked = structured(
      await call(writer.client, "t3_pedir_aprovacao", { purpose, actions: ["thread.pin"] }),
    );
    const approvalUrl = new URL(asked.approvalUrl as string);
    expect(approvalUrl.origin).toBe(issuer);
    expect(approvalUrl.pathname).toBe("/approve");
    // Nothing secret in the link: the request id only.
    expect([...approvalUrl.searchParams.keys()]).toEqual(["request"]);

    const page = phone.page;
    await openOnPhone(page, approvalUrl.href);
    expect(await page.locator("[data-testid=request-client]").textContent()).toMatch(
      /^Test client, signed in \d{1,2}:\d\d( [AP]M)? asks to write$/,
    );
    expect(await page.locator("[data-testid=purpose]").textContent()).toContain(purpose);
    // Exactly what approving grants: the client asked for thread.pin, nothing else is listed.
    const grants = await page.locator("[data-testid=grant]").allTextContents();
    expect(grants.length).toBeGreaterThan(0);
    for (const grant of grants) expect(grant).toMatch(/^\S+: projects .+; actions Pin a thread$/);
    expect(await phone.credentials()).toHaveLength(0);
    // What the page reads names no path of this machine: the link may travel through a push service.
    const seen = await fetch(`${issuer}/approve/api/view`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: issuer },
      body: JSON.stringify({ requestId: approvalUrl.searchParams.get("request") }),
    });
    expect(seen.status).toBe(200);
    const seenText = await seen.text();
    for (const hidden of ["directory", "workspaceRoots", "leaseSecret", "writes"])
      expect(seenText).not.toContain(hidden);
    const code = await enrollCode();
    // The code is the whole proof, so it is asked only from the issuer's own pages.
    const foreign = await fetch(`${issuer}/oauth/passkeys/enroll/options`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: "https://evil.example" },
      body: JSON.stringify({ code }),
    });
    expect(foreign.status).toBe(403);
    await page.fill("[data-testid=enroll-code]", code);
    await page.fill("[data-testid=passkey-name]", "Phone");
    await page.click("[data-testid=enroll-submit]");
    await say(page, "Passkey added on this device.");
    expect(await phone.credentials()).toHaveLength(1);
    // The code served once, and no restart was needed.
    const again = await fetch(`${issuer}/oauth/passkeys/enroll/options`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: issuer },
      body: JSON.stringify({ code }),
    });
    expect(again.status).toBe(400);

    const shownFingerprint = await page.locator("[data-testid=fingerprint]").textContent();
    await page.click("[data-testid=approve]");
    await say(page, "Lease granted.");
    expect((await pageWidth(page)).overflow).toBe(0);
    // Right after "Lease granted." the page lists the open lease it made, with End and the
    // fingerprint the request showed.
    const listed = page.locator("[data-testid=open-lease]");
    await listed.first().waitFor();
    const listedFingerprints = await page.locator("[data-testid=lease-fingerprint]").allTextContents();
    expect(listedFingerprints).toContain(shownFingerprint);
    expect(await listed.locator("[data-testid=end-lease]").count()).toBeGreaterThan(0);
    // The view names no path of this machine (the link may travel through a push service).
    const view = await fetch(`${issuer}/approve/api/view`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: issuer },
      body: JSON.stringify({ requestId: "not-a-live-request" }),
    });
    expect(view.status).not.toBe(200);
    // Without a live request's id the page from afar tells a stranger nothing.
    const blind = await fetch(`${issuer}/approve/api/leases`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: issuer },
      body: "{}",
    });
    expect(blind.status).not.toBe(200);
    expect(await blind.text()).not.toContain("leaseId");

    const lease = structured(await call(writer.client, "t3_pedir_aprovacao", {}));
    expect(lease).toMatchObject({ authorized: true });
    // One fingerprint: the request's answer, the page and the lease say the same.
    expect(asked.scopeFingerprint).toBe(shownFingerprint);
    expect(lease.scopeFingerprint).toBe(shownFingerprint);
    const before = gate.world.commandCount();
    const pinned = await call(writer.client, "t3_escrever_thread_pin", {
      leaseId: lease.leaseId,
      environment: "alpha",
      operationId: "op-afar-pin",
      input: { threadId: IDLE_THREAD },
    });
    expect(pinned.isError, textOf(pinned)).toBeFalsy();
    expect(structured(pinned)).toMatchObject({ state: "completed" });
    expect(gate.world.commandCount()).toBe(before + 1);
  }, 120_000);

  it("adds a third device with a code a signed-in device approved with its passkey", async () => {
    // The laptop holds the first passkey (it signed the client in): it asks for a code.
    await openOnPhone(laptop.page, `${issuer}/approve`);
    await laptop.page.click("[data-testid=device-code]");
    await say(laptop.page, "Type this code on the new device");
    const code = (await laptop.page.locator("[data-testid=device-code-value]").textContent()) ?? "";
    expect(code).toMatch(/^[A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4}$/);
    const tablet = await openWithAuthenticator(browser, { width: 820, height: 1180 });
    try {
      await openOnPhone(tablet.page, `${issuer}/approve`);
      await tablet.page.fill("[data-testid=enroll-code]", code);
      await tablet.page.fill("[data-testid=passkey-name]", "Tablet");
      await tablet.page.click("[data-testid=enroll-submit]");
      await say(tablet.page, "Passkey added on this device.");
      expect(await tablet.credentials()).toHaveLength(1);
    } finally {
      await tablet.context.close();
    }
    // A device without a passkey gets no code.
    const refused = await fetch(`${issuer}/oauth/passkeys/device-code`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: issuer },
      body: JSON.stringify({ ticketId: "none", response: { id: "forged", type: "public-key" } }),
    });
    expect(refused.status).toBe(400);
  }, 60_000);

  it("approves a stdio bridge's request at the issuer's origin with the phone's passkey", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [builtBin("t3-connector-write"), "bridge"],
      env: { ...(process.env as Record<string, string>), T3_CONNECTOR_WRITE_CONFIG: gate.config.path },
      stderr: "pipe",
    });
    const bridge = new Client({ name: "home-bridge", version: "2.0.0" });
    await bridge.connect(transport);
    try {
      const purpose = "mark the idle thread unread from home";
      const asked = structured(
        await call(bridge, "t3_pedir_aprovacao", { purpose, actions: ["thread.mark-unread"] }),
      );
      expect(new URL(asked.approvalUrl as string).origin).toBe(issuer);
      const waiting = call(bridge, "t3_pedir_aprovacao", { requestId: asked.requestId, waitSeconds: 60 });
      await openOnPhone(phone.page, asked.approvalUrl as string);
      expect(await phone.page.locator("[data-testid=request-client]").textContent()).toBe(
        "home-bridge 2.0.0 (its own word) asks to write",
      );
      await phone.page.click("[data-testid=approve]");
      await say(phone.page, "Lease granted.");
      const lease = structured(await waiting);
      expect(lease).toMatchObject({ authorized: true, decision: "approved" });
      const marked = await call(bridge, "t3_escrever_thread_mark_unread", {
        leaseId: lease.leaseId,
        environment: "alpha",
        operationId: "op-afar-mark",
        input: { threadId: IDLE_THREAD },
      });
      expect(marked.isError, textOf(marked)).toBeFalsy();
    } finally {
      await bridge.close();
    }
  }, 120_000);

  it("denies and ends with the passkey only; a call without one, from another origin or to another Host decides nothing", async () => {
    const purpose = "something to deny";
    const asked = structured(
      await call(writer.client, "t3_pedir_aprovacao", { purpose, actions: ["thread.pin"] }),
    );
    const requestId = asked.requestId as string;
    const post = (route: string, body: unknown, headers: Record<string, string> = { Origin: issuer }) =>
      fetch(`${issuer}/approve/api/${route}`, {
        method: "POST",
        headers: { "Content-Type": "application/json", ...headers },
        body: JSON.stringify(body),
      });
    // A foreign page: refused before the gate (serve's Origin allowlist).
    expect(
      (await post("options", { requestId, decision: "deny" }, { Origin: "https://evil.example" })).status,
    ).toBe(403);
    // No Origin at all (a script, not a page): the gate refuses a state change.
    expect((await post("options", { requestId, decision: "deny" }, {})).status).toBe(403);
    // A ticket, but no assertion of the owner's passkey: nothing denied.
    const options = (await (await post("options", { requestId, decision: "deny" })).json()) as {
      ticketId: string;
    };
    const forged = await post("stop", {
      ticketId: options.ticketId,
      response: { id: "forged", type: "public-key" },
    });
    expect(forged.status).toBeGreaterThanOrEqual(400);
    // Approving without the request's challenge answered: refused.
    const unasked = await post("approve", { requestId, response: { id: "forged", type: "public-key" } });
    expect(unasked.status).toBeGreaterThanOrEqual(400);
    // 127.0.0.1 reaches the proxy's socket but is not the issuer's name.
    const { request } = await import("node:http");
    const status = await new Promise<number>((resolve, reject) => {
      const outgoing = request(
        {
          host: "127.0.0.1",
          port: Number(new URL(serve.ready.healthz).port),
          path: "/approve",
          headers: { Host: "127.0.0.1" },
        },
        (answer) => {
          answer.resume();
          resolve(answer.statusCode ?? 0);
        },
      );
      outgoing.on("error", reject);
      outgoing.end();
    });
    expect(status).toBe(403);

    // The person denies on the phone, with the passkey.
    await openOnPhone(phone.page, asked.approvalUrl as string);
    await phone.page.click("[data-testid=deny]");
    await say(phone.page, "Request denied.");
    expect(structured(await call(writer.client, "t3_pedir_aprovacao", { requestId }))).toMatchObject({
      decision: "denied",
    });
    // And ends the session's open lease there, with the passkey.
    const lease = gate.gate.lease.list()[0];
    expect(lease).toBeDefined();
    const card = phone.page.locator(`[data-lease-id="${lease?.leaseId}"]`);
    await card.locator("[data-testid=end-lease]").click();
    await say(phone.page, "Lease ended.");
    expect(gate.gate.lease.get(lease?.leaseId as string)).toBeNull();
  }, 120_000);

  it("the plain /approve, signed in with the passkey, lists a lease granted a moment before and ends it", async () => {
    const purpose = "a lease to end from the plain page";
    const asked = structured(
      await call(writer.client, "t3_pedir_aprovacao", { purpose, actions: ["thread.pin"] }),
    );
    await openOnPhone(phone.page, asked.approvalUrl as string);
    await phone.page.click("[data-testid=approve]");
    await say(phone.page, "Lease granted.");
    const lease = structured(await call(writer.client, "t3_pedir_aprovacao", {}));
    expect(lease).toMatchObject({ authorized: true });

    // A stranger with a ticket but no assertion of the owner's passkey sees no lease.
    const post = (route: string, body: unknown) =>
      fetch(`${issuer}/approve/api/${route}`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Origin: issuer },
        body: JSON.stringify(body),
      });
    const ticket = (await (await post("options", { decision: "leases" })).json()) as { ticketId: string };
    const forged = await post("leases", {
      ticketId: ticket.ticketId,
      response: { id: "forged", type: "public-key" },
    });
    expect(forged.status).toBeGreaterThanOrEqual(400);
    expect(await forged.text()).not.toContain("leaseId");
    // A deny's ticket does not open the list either.
    const denyTicket = (await (await post("options", { requestId: "any", decision: "deny" })).json()) as {
      ticketId: string;
    };
    const crossed = await post("leases", {
      ticketId: denyTicket.ticketId,
      response: { id: "forged", type: "public-key" },
    });
    expect(crossed.status).toBeGreaterThanOrEqual(400);

    // The person opens the plain page, no request link, and signs in with the passkey.
    await openOnPhone(phone.page, `${issuer}/approve`);
    expect(await phone.page.locator("[data-testid=open-lease]").count()).toBe(0);
    await phone.page.click("[data-testid=show-leases]");
    await say(phone.page, "Open leases listed");
    const card = phone.page.locator(`[data-lease-id="${lease.leaseId as string}"]`);
    await card.waitFor();
    expect(await card.locator("[data-testid=lease-fingerprint]").textContent()).toBe(lease.scopeFingerprint);
    await card.locator("[data-testid=end-lease]").click();
    await say(phone.page, "Lease ended.");
    expect(gate.gate.lease.get(lease.leaseId as string)).toBeNull();
    expect(await phone.page.locator(`[data-lease-id="${lease.leaseId as string}"]`).count()).toBe(0);
  }, 120_000);

  it("a passkey removed from the terminal approves nothing there any more", async () => {
    const listed = JSON.parse(await oauthCommand(["passkeys"])) as {
      passkeys: Array<{ id: string; name: string | null }>;
    };
    const phoneKey = listed.passkeys.find((passkey) => passkey.name === "Phone");
    expect(phoneKey).toBeDefined();
    expect(listed.passkeys).toHaveLength(3);
    await oauthCommand(["remove-passkey", phoneKey?.id as string]);
    const purpose = "after the phone lost its passkey";
    const asked = structured(
      await call(writer.client, "t3_pedir_aprovacao", { purpose, actions: ["thread.pin"] }),
    );
    const leasesBefore = gate.gate.lease.list().length;
    await openOnPhone(phone.page, asked.approvalUrl as string);
    await phone.page.click("[data-testid=approve]");
    await say(phone.page, "Not approved");
    // In words a person can act on, never a bare code.
    const said = (await phone.page.locator("[data-testid=message]").textContent()) ?? "";
    expect(said).not.toMatch(/Not approved: [a-z_]+$/);
    expect(said).toContain("t3-connector oauth enroll");
    expect(gate.gate.lease.list()).toHaveLength(leasesBefore);
  }, 60_000);
});
