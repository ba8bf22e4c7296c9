/**
 * The end of a write session of `serve --http` against a real gate (ADR 0049, 0067), attacked
 * where it races: a session that ends while its `t3_pedir_aprovacao` is under way at the gate,
 * and a session whose writes serve drops to make room past MAX_WRITE_SESSIONS. Each `/mcp`
 * request gets its own server as serve builds it (`serverPartsFor` with the session's `authInfo`),
 * reached by the MCP SDK client; each session's relay client is the bridge's, over a real socket
 * to a real gate on the simulator. The one seam: a call at the relay is held until the test has
 * ended the session (before it is sent, or before its answer is read), so the race is certain and
 * nothing sleeps.
 */
import { randomBytes } from "node:crypto";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import type { WriteConfig } from "@t3-connector/core/config";
import { registerToolGroups, ToolServer } from "@t3-connector/mcp-tools";
import { WRITE_SCOPE } from "@t3-connector/oauth";
import { postJson } from "@t3-connector/test-support/gate-http";
import { type RealGate, startRealGate } from "@t3-connector/test-support/real-gate";
import { createRelayClient, type RelayClient } from "@t3-connector/write-bridge";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_WRITE_SESSIONS, UrlWrites } from "../../src/http/url-writes.js";
import { serverPartsFor } from "../../src/http/write-session-parts.js";

let gate: RealGate;
const clients: Client[] = [];

beforeAll(async () => {
  gate = await startRealGate();
}, 60_000);

afterAll(async () => {
  for (const client of clients) await client.close();
  await gate?.close();
});

type Body = Record<string, unknown>;
type Answer = {
  isError?: boolean;
  content?: Array<{ type: string; text?: string }>;
  structuredContent?: Body;
};
const textOf = (answer: Answer) => answer.content?.[0]?.text ?? "";

/** The session as the OAuth guard hands it to the server factory. */
function authInfoOf(sessionId: string, clientName: string): AuthInfo {
  const access = {
    sessionId,
    clientId: `client-${sessionId}`,
    clientName,
    sessionStartedAt: Date.now(),
    scope: ["t3:read", WRITE_SCOPE],
    resource: "http://localhost/mcp",
    expiresAt: Date.now() + 60_000,
  };
  return { token: "", clientId: access.clientId, scopes: [...access.scope], extra: { access } };
}

/** One `/mcp` request's server for the session, as serve builds it, and an SDK client on it. */
async function requestServer(writes: UrlWrites, authInfo: AuthInfo): Promise<Client> {
  const server = new ToolServer({ name: "t3-connector-test", version: "0.0.0" });
  registerToolGroups(server, serverPartsFor(writes, authInfo).alongside ?? []);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "hostile-or-not", version: "1.0.0" });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  clients.push(client);
  return client;
}

function ask(client: Client, purpose: string): Promise<Answer> {
  return client.callTool({
    name: "t3_pedir_aprovacao",
    arguments: { purpose, actions: ["thread.pin"] },
  }) as Promise<Answer>;
}

/** What the gate's page lists as pending for `clientName`, read as the page reads it. */
async function pendingOf(clientName: string): Promise<Body[]> {
  const origin = `http://localhost:${gate.gate.port}`;
  const state = await postJson(gate.gate.port, "/api/state", {}, { origin });
  const rows = (state.body as { pendingRequests: Array<Body & { client?: { name?: string } }> })
    .pendingRequests;
  return rows.filter((row) => row.client?.name === clientName);
}

/** What the page's link shows for a request: 200 while it can be approved, else why it is dead. */
async function pageView(requestId: string): Promise<{ status: number; body: unknown }> {
  const origin = `http://localhost:${gate.gate.port}`;
  return postJson(gate.gate.port, "/api/requests/view", { requestId }, { origin });
}

interface Held {
  /** Resolves when the held `request_approval` reached the seam (with the gate's answer, if read). */
  readonly reached: Promise<Body | undefined>;
  release(): void;
}

/**
 * The bridge's relay client with one seam: the next `request_approval` is held before it is sent
 * (`before_send`) or after the gate answered it (`before_answer`), until `release`.
 */
function holdingRelays(mode: "before_send" | "before_answer") {
  let armed = true;
  let reached: (answer: Body | undefined) => void = () => undefined;
  let release: () => void = () => undefined;
  const held: Held = {
    reached: new Promise((resolve) => {
      reached = resolve;
    }),
    release: () => release(),
  };
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const relayOf = (config: WriteConfig): RelayClient => {
    const real = createRelayClient({ port: config.port, stateDir: config.stateDir });
    return {
      call: async (body, signal, options) => {
        if (!armed || body.op !== "request_approval") return real.call(body, signal, options);
        armed = false;
        if (mode === "before_send") {
          reached(undefined);
          await released;
          return real.call(body, signal, options);
        }
        const answer = await real.call(body, signal, options);
        reached(answer as Body);
        await released;
        return answer;
      },
    };
  };
  return { relayOf, held };
}

function urlWrites(
  extra: { relayOf?: (config: WriteConfig) => RelayClient; info?: (line: string) => void } = {},
): UrlWrites {
  return new UrlWrites({
    config: gate.config,
    log: () => undefined,
    info: extra.info ?? (() => undefined),
    ...(extra.relayOf === undefined ? {} : { relayOf: extra.relayOf }),
  });
}

describe("a session that ends while its request is under way at the gate", () => {
  it("the gate refuses the request it receives after the session ended: nothing is pending", async () => {
    const { relayOf, held } = holdingRelays("before_send");
    const writes = urlWrites({ relayOf });
    const name = "ends-before-the-gate-hears";
    const client = await requestServer(writes, authInfoOf("s_before_send", name));
    const asking = ask(client, "asked as the session ends");
    await held.reached;
    await writes.endSession("s_before_send");
    held.release();
    const answer = await asking;
    expect(answer.isError).toBe(true);
    expect(textOf(answer)).toMatch(
      /^request_withdrawn: the session that asked for this approval request ended/,
    );
    expect(await pendingOf(name)).toEqual([]);
  });

  it("a request the gate built before the end is withdrawn, and the late answer says the session ended", async () => {
    const { relayOf, held } = holdingRelays("before_answer");
    const writes = urlWrites({ relayOf });
    const name = "ends-before-the-answer";
    const client = await requestServer(writes, authInfoOf("s_before_answer", name));
    const asking = ask(client, "built, then the session ends");
    const built = await held.reached;
    const requestId = built?.requestId as string;
    // The gate built it and it is approvable right now: the race is real.
    expect((await pageView(requestId)).status).toBe(200);
    await writes.endSession("s_before_answer");
    held.release();
    const answer = await asking;
    expect(answer.isError).toBe(true);
    expect(textOf(answer)).toMatch(/^write_session_ended: this session ended/);
    expect(await pageView(requestId)).toMatchObject({ status: 410, body: { error: "request_withdrawn" } });
    expect(await pendingOf(name)).toEqual([]);
  });

  it("a call that starts after the end never reaches the gate", async () => {
    const writes = urlWrites();
    const name = "calls-after-its-end";
    const authInfo = authInfoOf("s_after_end", name);
    // A server built while the session lived (its request still open) calls after the end.
    const client = await requestServer(writes, authInfo);
    await writes.endSession("s_after_end");
    const answer = await ask(client, "asked after the end");
    expect(textOf(answer)).toMatch(/^write_session_ended: this session ended/);
    expect(await pendingOf(name)).toEqual([]);
  });
});

describe(`dropping the least recently used of ${MAX_WRITE_SESSIONS} write sessions`, () => {
  it("ends its lease and withdraws its request at the gate, and tells its later calls so", async () => {
    const victimSecret = randomBytes(32).toString("base64url");
    let made = 0;
    const relayOf = (config: WriteConfig): RelayClient =>
      // The victim's relay client is the first one made: its secret is known so a lease can be granted to it.
      createRelayClient({
        port: config.port,
        stateDir: config.stateDir,
        ...(made++ === 0 ? { holderSecret: victimSecret } : {}),
      });
    let heard: (line: string) => void = () => undefined;
    const dropped = new Promise<string>((resolve) => {
      heard = resolve;
    });
    const writes = urlWrites({
      relayOf,
      info: (line) => {
        if (line.startsWith("session s_victim: ")) heard(line);
      },
    });
    const victimName = "dropped-to-make-room";
    const victimAuth = authInfoOf("s_victim", victimName);
    const victim = await requestServer(writes, victimAuth);
    const asked = (await ask(victim, "pending when the session is dropped")).structuredContent as Body;
    expect(asked).toMatchObject({ authorized: false, decision: "pending" });
    const requestId = asked.requestId as string;
    const leaseId = await gate.grantLease({ holderSecret: victimSecret });
    expect(gate.gate.lease.get(leaseId)).not.toBeNull();

    // A flood of write sessions, each served once: the victim becomes the least recently used.
    for (let n = 0; n < MAX_WRITE_SESSIONS; n += 1) {
      serverPartsFor(writes, authInfoOf(`s_flood_${n}`, `flood-${n}`));
    }
    // Dropping it ends its writes in the background; the line says when the gate has done so.
    expect(await dropped).toBe(
      `session s_victim: its writes were dropped to make room (at most ${MAX_WRITE_SESSIONS} write sessions); its requests were withdrawn and 1 lease(s) it held ended at the gate`,
    );

    // Exactly what the session's end does: the lease ended, the request withdrawn.
    expect(gate.gate.lease.get(leaseId)).toBeNull();
    expect(await pageView(requestId)).toMatchObject({ status: 410, body: { error: "request_withdrawn" } });

    // Its server from before the drop still runs: its call is refused by name, nothing is sent.
    const late = await ask(victim, "asked on the old transport");
    expect(textOf(late)).toMatch(/^write_session_ended: serve keeps the writes of at most 256 sessions/);
    // A new request of the session: no write tool listed, the same refusal, no new holder secret drawn.
    const again = await requestServer(writes, victimAuth);
    expect((await again.listTools()).tools).toEqual([]);
    const refused = await ask(again, "asked on a new request");
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/^write_session_ended: serve keeps the writes of at most 256 sessions/);
    expect(made).toBe(MAX_WRITE_SESSIONS + 1);
    expect(await pendingOf(victimName)).toEqual([]);

    // The sessions that stayed are untouched: the newest asks and gets its own request.
    const kept = await requestServer(writes, authInfoOf(`s_flood_${MAX_WRITE_SESSIONS - 1}`, "flood-kept"));
    const keptAsk = (await ask(kept, "a kept session asks")).structuredContent as Body;
    expect(keptAsk).toMatchObject({ decision: "pending" });
    expect(await writes.endSession(`s_flood_${MAX_WRITE_SESSIONS - 1}`)).toBe(0);
    // The dropped session's real end is still heard: nothing is left to end.
    expect(await writes.endSession("s_victim")).toBe(0);
  }, 60_000);
});
