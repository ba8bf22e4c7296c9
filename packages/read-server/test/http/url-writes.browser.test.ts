/**
 * The write tools by URL (ADR 0049): an MCP SDK client signed in to `serve --http` by DCR with
 * `t3:read t3:write`, its consent given on the passkey page in Chromium, lists the bridge's write
 * tools beside the read tools, asks for a lease, gets it approved on the gate's page, and pins a
 * thread: one command at the simulator. The write box shows whatever scope the client asked
 * (ADR 0070). A session granted reads only lists no write tool and its write call is refused,
 * saying how to reconnect with writes; a person who unticks the box gets reads only, as the page said.
 */

import { readToolDefinitions } from "@t3-connector/read-server";
import { connectModernHttp } from "@t3-connector/test-support/modern-client";
import { IDLE_THREAD } from "@t3-connector/test-support/sim-world";
import { BRIDGE_TOOLS } from "@t3-connector/write-bridge";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../src/cli.js";
import {
  approveOnGatePage,
  call,
  type SignedIn,
  signInByUrl,
  startUrlWritesLoop,
  structured,
  textOf,
  type UrlWritesLoop,
} from "./support/url-writes-loop.js";

let loop: UrlWritesLoop;
let writer: SignedIn;

beforeAll(async () => {
  loop = await startUrlWritesLoop();
  writer = await signInByUrl(loop, { scope: "t3:read t3:write", name: "writer-client" });
}, 120_000);

afterAll(async () => {
  await writer?.client.close();
  await loop?.close();
});

// Every read tool the server serves, whatever their number: the write tools come beside them.
const READ_TOOL_COUNT = readToolDefinitions.length;
const LEASED_READS = new Set(["t3_projetos", "t3_threads", "t3_atencao", "t3_thread", "t3_mensagens"]);

describe("write tools by URL", () => {
  it("says at start where the gate is, and offers t3:write in the metadata", async () => {
    expect(loop.serve.stderr()).toContain(
      `write tools for sessions granted t3:write, relayed to the gate on port ${loop.gate.config.port}`,
    );
    const metadata = (await (
      await fetch(`${loop.serve.issuer}/.well-known/oauth-authorization-server`)
    ).json()) as { scopes_supported: string[] };
    expect(metadata.scopes_supported).toEqual(["t3:read", "t3:write"]);
  });

  it("asked the person on the consent page in the write scope's own words, ticked as asked", () => {
    expect(writer.writeChoice).toEqual({
      text: expect.stringContaining(
        "t3:write: ask for leases to change threads; every change still needs your passkey on the approval page",
      ),
      ticked: true,
    });
    expect(writer.provider.saved?.scope).toBe("t3:read t3:write");
  });

  it("lists the bridge's write tools with the bridge's own schemas beside the read tools", async () => {
    const { tools } = await writer.client.listTools();
    const names = tools.map((tool) => tool.name);
    const writeSide = BRIDGE_TOOLS.filter((tool) => !LEASED_READS.has(tool.name));
    expect(names).toHaveLength(READ_TOOL_COUNT + writeSide.length);
    for (const tool of writeSide) expect(names).toContain(tool.name);
    expect(names).toContain("t3_escrever_thread_pin");
    expect(new Set(names).size).toBe(names.length);
    const pin = tools.find((tool) => tool.name === "t3_escrever_thread_pin");
    expect(pin?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    expect(pin?.inputSchema.required).toEqual(expect.arrayContaining(["leaseId", "operationId", "input"]));
    expect(writer.client.getInstructions()).toContain("call t3_pedir_aprovacao first");
  });

  it("asks for a lease, gets it approved on the gate's page, and pins once", async () => {
    const purpose = "pin the idle thread from the phone";
    const asked = structured(
      await call(writer.client, "t3_pedir_aprovacao", { purpose, actions: ["thread.pin"] }),
    );
    expect(asked).toMatchObject({ authorized: false, decision: "pending" });
    await approveOnGatePage(loop.approval.page, asked.approvalUrl as string, purpose);
    // The page names the holder as the session's client, the name the person allowed.
    expect(await loop.approval.page.locator("[data-testid=lease-holder]").first().textContent()).toContain(
      "Test client",
    );

    const lease = structured(await call(writer.client, "t3_pedir_aprovacao", {}));
    expect(lease).toMatchObject({ authorized: true });
    const before = loop.gate.world.commandCount();
    const pinned = await call(writer.client, "t3_escrever_thread_pin", {
      leaseId: lease.leaseId,
      environment: "alpha",
      operationId: "op-url-pin-1",
      input: { threadId: IDLE_THREAD },
    });
    expect(pinned.isError, textOf(pinned)).toBeFalsy();
    expect(structured(pinned)).toMatchObject({ state: "completed", leaseId: lease.leaseId, replayed: false });
    // The same call again is a replay from the gate's journal: nothing is sent twice.
    const again = await call(writer.client, "t3_escrever_thread_pin", {
      leaseId: lease.leaseId,
      environment: "alpha",
      operationId: "op-url-pin-1",
      input: { threadId: IDLE_THREAD },
    });
    expect(structured(again)).toMatchObject({ state: "completed", replayed: true });
    expect(loop.gate.world.commandCount()).toBe(before + 1);
  }, 60_000);

  it("serves a 2026-07-28 client of the same sessions alike: the write session's tools and lease, none to a reader", async () => {
    // The session reaches the server of a 2026 request through the handler's authInfo, as a 2025
    // request's: the same token, the same tools, the same holder secret (so the same lease).
    const modern = await connectModernHttp(loop.serve.mcpUrl, writer.provider.tokens()?.access_token);
    const reader = await signInByUrl(loop, { scope: "t3:read", name: "reader-2026", allowWrite: false });
    const modernReader = await connectModernHttp(loop.serve.mcpUrl, reader.provider.tokens()?.access_token);
    try {
      const names = (await modern.listTools()).tools.map((tool) => tool.name);
      expect(names).toContain("t3_escrever_thread_pin");
      expect(names).toHaveLength((await writer.client.listTools()).tools.length);
      const lease = (await modern.callTool({ name: "t3_pedir_aprovacao", arguments: {} })).structuredContent;
      expect(lease).toMatchObject({ authorized: true });

      const readerNames = (await modernReader.listTools()).tools.map((tool) => tool.name);
      expect(readerNames).toHaveLength(READ_TOOL_COUNT);
      const refused = await modernReader.callTool({
        name: "t3_pedir_aprovacao",
        arguments: { purpose: "sneak a lease in the new era" },
      });
      expect(refused.isError).toBe(true);
      expect(textOf(refused as never)).toMatch(/^write_not_granted: /);
    } finally {
      await modern.close();
      await modernReader.close();
      await reader.client.close();
    }
  }, 60_000);

  it("offers the write box to a client that asked for t3:read alone, and grants t3:write when left ticked", async () => {
    const asker = await signInByUrl(loop, { scope: "t3:read", name: "read-asker" });
    try {
      expect(asker.writeChoice?.ticked).toBe(true);
      expect(asker.provider.saved?.scope).toBe("t3:read t3:write");
      const names = (await asker.client.listTools()).tools.map((tool) => tool.name);
      expect(names).toContain("t3_pedir_aprovacao");
    } finally {
      await asker.client.close();
    }
  }, 60_000);

  it("lists no write tool to a session granted t3:read only, and refuses its write call saying how to reconnect", async () => {
    const reader = await signInByUrl(loop, { scope: "t3:read", name: "reader-client", allowWrite: false });
    try {
      // The person unticked the box the page showed whatever the client asked.
      expect(reader.writeChoice?.ticked).toBe(true);
      expect(reader.provider.saved?.scope).toBe("t3:read");
      const { tools } = await reader.client.listTools();
      expect(tools).toHaveLength(READ_TOOL_COUNT);
      expect(tools.filter((tool) => tool.name.startsWith("t3_escrever_"))).toEqual([]);
      const before = loop.gate.world.commandCount();
      const refused = await call(reader.client, "t3_escrever_thread_pin", {
        leaseId: "lease-of-someone",
        environment: "alpha",
        operationId: "op-url-reader",
        input: { threadId: IDLE_THREAD },
      });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toMatch(/^write_not_granted: this session was not granted t3:write/);
      expect(textOf(refused)).toContain("reconnects this server in the client");
      expect(textOf(refused)).toContain("leaves the write box ticked on the consent page");
      const asked = await call(reader.client, "t3_pedir_aprovacao", { purpose: "sneak a lease" });
      expect(textOf(asked)).toMatch(/^write_not_granted: /);
      expect(loop.gate.world.commandCount()).toBe(before);
    } finally {
      await reader.client.close();
    }
  }, 60_000);

  it("grants reads only when the person unticks the write box the client asked for", async () => {
    const unticked = await signInByUrl(loop, { scope: "t3:read t3:write", allowWrite: false });
    try {
      expect(unticked.provider.saved?.scope).toBe("t3:read");
      const { tools } = await unticked.client.listTools();
      expect(unticked.writeChoice?.ticked).toBe(true);
      expect(tools).toHaveLength(READ_TOOL_COUNT);
    } finally {
      await unticked.client.close();
    }
  }, 60_000);
});

describe("a lease bound to the OAuth session that asked", () => {
  const pin = (client: SignedIn["client"], leaseId: unknown, operationId: string) =>
    call(client, "t3_escrever_thread_pin", {
      leaseId,
      environment: "alpha",
      operationId,
      input: { threadId: IDLE_THREAD },
    });

  /** Asks through `by`, approves on the gate's page, answers the lease id. */
  async function approvedLease(by: SignedIn, purpose: string): Promise<string> {
    const asked = structured(
      await call(by.client, "t3_pedir_aprovacao", { purpose, actions: ["thread.pin"] }),
    );
    // Waiting on the request hands the session the lease as the person approves it.
    const waiting = call(by.client, "t3_pedir_aprovacao", { requestId: asked.requestId, waitSeconds: 60 });
    await approveOnGatePage(loop.approval.page, asked.approvalUrl as string, purpose);
    const lease = structured(await waiting);
    expect(lease).toMatchObject({ authorized: true, decision: "approved" });
    return lease.leaseId as string;
  }

  it("is never given to, nor used by, another session or a stdio bridge, and the page names the session", async () => {
    const second = await signInByUrl(loop, { scope: "t3:read t3:write", name: "second-client" });
    try {
      const leaseId = await approvedLease(writer, "pin as the first session");
      const card = loop.approval.page.locator(`[data-lease-id="${leaseId}"]`);
      expect(await card.locator("[data-testid=lease-holder]").textContent()).toMatch(
        /^Held by the session Test client, signed in \d{1,2}:\d\d( [AP]M)?; only that session can use it/,
      );
      const before = loop.gate.world.commandCount();
      // The second session asking gets a request of its own, never the first one's lease.
      const asked = structured(await call(second.client, "t3_pedir_aprovacao", {}));
      expect(asked).toMatchObject({ authorized: false, decision: "pending" });
      expect(asked.leaseId).toBeUndefined();
      const borrowed = await pin(second.client, leaseId, "op-url-borrowed");
      expect(textOf(borrowed)).toMatch(/^lease_closed: this lease was approved for another client/);
      // A stdio bridge's relay call naming it, without the session's secret, is refused the same way.
      const bridged = await loop.gate.relay({
        op: "dispatch",
        action: "thread.pin",
        leaseId,
        environment: "alpha",
        operationId: "op-bridge-borrowed",
        input: { threadId: IDLE_THREAD },
      });
      expect(bridged.status).toBe(403);
      expect(bridged.body).toMatchObject({ error: "lease_closed" });
      expect(loop.gate.world.commandCount()).toBe(before);
    } finally {
      await second.client.close();
    }
  }, 90_000);

  it("ending the lease on the page leaves the session signed in", async () => {
    const leaseId = structured(await call(writer.client, "t3_pedir_aprovacao", {})).leaseId as string;
    const page = loop.approval.page;
    const card = page.locator(`[data-lease-id="${leaseId}"]`);
    await card.locator("[data-testid=end-lease]").click();
    await card.waitFor({ state: "detached" });
    const ended = await pin(writer.client, leaseId, "op-url-after-end");
    expect(textOf(ended)).toMatch(/^lease_closed: /);
    // Still signed in: the session reads, and may ask again.
    const threads = await call(writer.client, "t3_threads", { environment: "beta" });
    expect(threads.isError, textOf(threads)).toBeFalsy();
    expect(structured(await call(writer.client, "t3_pedir_aprovacao", {}))).toMatchObject({
      authorized: false,
    });
  }, 60_000);

  it("revoking the session ends the leases it holds", async () => {
    const leaseId = await approvedLease(writer, "pin before the session is revoked");
    const card = loop.approval.page.locator(`[data-lease-id="${leaseId}"]`);
    await card.waitFor();
    const revoked = await fetch(`${loop.serve.issuer}/revoke`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        token: writer.provider.saved?.refresh_token as string,
        client_id: writer.provider.client?.client_id as string,
      }),
    });
    expect(revoked.status).toBe(200);
    // The gate's page drops the lease as the gate closes it.
    await card.waitFor({ state: "detached" });
    expect(loop.gate.gate.lease.get(leaseId)).toBeNull();
    expect(loop.serve.stderr()).toMatch(/session s_\S+ ended: 1 lease\(s\) it held ended at the gate/);
  }, 60_000);

  it("ending the session ends a lease approved after its last call, which serve was never answered", async () => {
    const quiet = await signInByUrl(loop, { scope: "t3:read t3:write", name: "quiet-after-asking" });
    try {
      const purpose = "pin approved while the session does not ask again";
      const asked = structured(
        await call(quiet.client, "t3_pedir_aprovacao", { purpose, actions: ["thread.pin"] }),
      );
      const before = new Set(loop.gate.gate.lease.list().map((lease) => lease.leaseId));
      await approveOnGatePage(loop.approval.page, asked.approvalUrl as string, purpose);
      const granted = loop.gate.gate.lease.list().find((lease) => !before.has(lease.leaseId));
      expect(granted).toBeDefined();
      const card = loop.approval.page.locator(`[data-lease-id="${granted?.leaseId}"]`);
      await card.waitFor();
      const revoked = await fetch(`${loop.serve.issuer}/revoke`, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          token: quiet.provider.saved?.refresh_token as string,
          client_id: quiet.provider.client?.client_id as string,
        }),
      });
      expect(revoked.status).toBe(200);
      await card.waitFor({ state: "detached" });
      expect(loop.gate.gate.lease.get(granted?.leaseId as string)).toBeNull();
    } finally {
      await quiet.client.close();
    }
  }, 90_000);

  it("revoking the session from the terminal ends its lease and withdraws its request, with no request to serve", async () => {
    const revokedSession = await signInByUrl(loop, {
      scope: "t3:read t3:write",
      name: "revoked-from-terminal",
    });
    try {
      const leaseId = await approvedLease(revokedSession, "pin before the terminal revokes the session");
      // Asking for more opens a request of its own while the lease stays open.
      const asked = structured(
        await call(revokedSession.client, "t3_pedir_aprovacao", {
          purpose: "rename while the session is revoked",
          actions: ["thread.title"],
        }),
      );
      expect(asked).toMatchObject({ authorized: false, decision: "pending" });
      const page = loop.approval.page;
      await page.goto(asked.approvalUrl as string);
      await page.locator("#request:not([hidden]) [data-testid=approve]").waitFor();
      const card = page.locator(`[data-lease-id="${leaseId}"]`);
      await card.waitFor();

      // The person at the terminal: `t3-connector oauth sessions`, then `oauth revoke <id>`.
      const sessions = JSON.parse((await terminal(["oauth", "sessions"])).stdout) as {
        sessions: Array<{ id: string; createdAt: string }>;
      };
      const newest = [...sessions.sessions].sort((a, b) => a.createdAt.localeCompare(b.createdAt)).at(-1);
      expect((await terminal(["oauth", "revoke", newest?.id as string])).code).toBe(0);

      // No request reaches serve: its watch of the state directory ends the session, then its lease.
      await card.waitFor({ state: "detached" });
      expect(loop.gate.gate.lease.get(leaseId)).toBeNull();
      await page.goto(asked.approvalUrl as string);
      await page.locator("[data-testid=dead-end][data-code=request_withdrawn]").waitFor();
      expect(await page.locator("[data-testid=dead-end-title]").textContent()).toBe(
        "The session that asked ended",
      );
      expect(loop.serve.stderr()).toContain(
        `session ${newest?.id} ended: 1 lease(s) it held ended at the gate`,
      );
    } finally {
      await revokedSession.client.close();
    }
  }, 90_000);
});

/** `t3-connector <argv>` with serve's read config, in process: the real CLI's commands. */
async function terminal(argv: string[]): Promise<{ code: number; stdout: string }> {
  let stdout = "";
  const code = await runCli(argv, {
    stdout: {
      write: (text: string) => {
        stdout += text;
      },
    },
    stderr: { write: () => {} },
    env: { T3_CONNECTOR_CONFIG: loop.serve.configPath },
  });
  return { code, stdout };
}
