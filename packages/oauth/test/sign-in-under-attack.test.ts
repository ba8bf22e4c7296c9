import { writeFile } from "node:fs/promises";
import { request } from "node:http";
import { connect } from "node:net";
import path from "node:path";
import {
  type CallbackServer,
  type OAuthServe,
  startCallbackServer,
  startOAuthServe,
} from "@t3-connector/test-support/oauth-serve";
import { SoftPasskey } from "@t3-connector/test-support/soft-passkey";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { listSessions } from "../src/index.js";
import { openSignInPage, pageCall, signInOnPage } from "./support/page-driver.js";
import { authorizeRequest, mcpToolsList, postForm } from "./support/pkce.js";

// A stranger who can reach the sign-in server, from the owner's own address (behind a tunnel
// every request comes from one peer), against the owner with a passkey. serveHttp in process.
let server: OAuthServe;
let callback: CallbackServer;
let passkey: SoftPasskey;
let clientId: string;

beforeAll(async () => {
  [server, callback] = await Promise.all([startOAuthServe(), startCallbackServer()]);
  passkey = new SoftPasskey(server.issuer);
  const registered = await fetch(`${server.issuer}/register`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ client_name: "Owner's client", redirect_uris: [callback.url] }),
  });
  clientId = ((await registered.json()) as { client_id: string }).client_id;
  // The owner's passkey exists first (the enrollment code is the terminal's, never the stranger's).
  expect((await ownerSignsIn()).status).toBe(200);
});
afterAll(async () => {
  await callback?.close();
  await server?.close();
});

const newRequest = () =>
  authorizeRequest(server.issuer, { clientId, redirectUri: callback.url, resource: server.mcpUrl });

/** The owner's whole sign-in and code exchange: answers the token endpoint's JSON. */
async function ownerSignsIn() {
  const asked = newRequest();
  const back = await signInOnPage(asked.url, passkey, { enrollmentCode: server.enrollmentCode });
  return postForm(`${server.issuer}/token`, {
    grant_type: "authorization_code",
    code: back.searchParams.get("code") as string,
    client_id: clientId,
    redirect_uri: callback.url,
    code_verifier: asked.verifier,
    resource: server.mcpUrl,
  });
}

describe("the sign-in server under attack", () => {
  it("a challenge answers once, and only for the sign-in it was given to", async () => {
    const first = await openSignInPage(newRequest().url);
    const second = await openSignInPage(newRequest().url);
    const started = await pageCall(server.issuer, first, "/oauth/sign-in/options", {});
    const answer = passkey.get(started.body.options as Parameters<SoftPasskey["get"]>[0]);
    // Another sign-in cannot use it.
    expect(
      (await pageCall(server.issuer, second, "/oauth/sign-in/verify", { response: answer })).status,
    ).toBe(400);
    expect((await pageCall(server.issuer, first, "/oauth/sign-in/verify", { response: answer })).status).toBe(
      200,
    );
    // Nor can the same one twice.
    expect((await pageCall(server.issuer, first, "/oauth/sign-in/verify", { response: answer })).status).toBe(
      400,
    );
    // A forged or foreign cookie opens nothing.
    const forged = { ...first, cookie: `${first.cookie.split("=")[0]}=t3c_tx_AAAA` };
    expect(
      (await pageCall(server.issuer, forged, "/oauth/consent", { decision: "approve" })).body.error,
    ).toBe("access_denied");
  });

  it("the owner signs in while a stranger holds every sign-in and challenge it can open, and fails as often as it can", async () => {
    const flows = [];
    for (let i = 0; i < 150; i += 1) flows.push(await openSignInPage(newRequest().url));
    expect(flows.every((flow) => flow.status === 200)).toBe(true);
    const challenges = await Promise.all(
      flows.map((flow) => pageCall(server.issuer, flow, "/oauth/sign-in/options", {})),
    );
    expect(challenges.every((answer) => answer.status === 200)).toBe(true);
    // Wrong answers until the failure budget says 429.
    const forged = new SoftPasskey(server.issuer);
    const failures = [];
    for (const [index, flow] of flows.slice(0, 40).entries()) {
      const options = challenges[index]?.body.options as Parameters<SoftPasskey["get"]>[0];
      failures.push(
        (await pageCall(server.issuer, flow, "/oauth/sign-in/verify", { response: forged.get(options) }))
          .status,
      );
    }
    expect(failures).toContain(429);
    // The owner, from the same address, is not refused: a verified passkey spends no budget.
    const exchange = await ownerSignsIn();
    expect(exchange.status, JSON.stringify(exchange.body)).toBe(200);
    expect(await mcpToolsList(server.mcpUrl, exchange.body.access_token as string)).toBe(200);
  });

  it("two concurrent exchanges of one code end the session it started", async () => {
    for (let round = 0; round < 5; round += 1) {
      const asked = newRequest();
      const back = await signInOnPage(asked.url, passkey);
      const exchange = () =>
        postForm(`${server.issuer}/token`, {
          grant_type: "authorization_code",
          code: back.searchParams.get("code") as string,
          client_id: clientId,
          redirect_uri: callback.url,
          code_verifier: asked.verifier,
          resource: server.mcpUrl,
        });
      const answers = await Promise.all([exchange(), exchange()]);
      expect(answers.map((answer) => answer.body.error)).toContain("invalid_grant");
      for (const answer of answers) {
        if (answer.status === 200)
          expect(await mcpToolsList(server.mcpUrl, answer.body.access_token as string)).toBe(401);
      }
    }
    expect(server.stderr()).toContain("(code_reused)");
  });

  it("answers a /mcp body that is not UTF-8 with 400, not 500", async () => {
    const exchange = await ownerSignsIn();
    const url = new URL(server.mcpUrl);
    const status = await new Promise<number>((resolve, reject) => {
      const outgoing = request(
        {
          host: "127.0.0.1",
          port: url.port,
          path: "/mcp",
          method: "POST",
          headers: {
            Host: url.host,
            "Content-Type": "application/json",
            Accept: "application/json, text/event-stream",
            Authorization: `Bearer ${exchange.body.access_token as string}`,
          },
        },
        (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        },
      );
      outgoing.on("error", reject);
      outgoing.end(Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]));
    });
    expect(status).toBe(400);
  });

  it("answers a token request declared past 16 KiB with 413 before its body is sent, and a registration that is not UTF-8 with 400", async () => {
    const url = new URL(server.issuer);
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(url.port), "127.0.0.1");
      let text = "";
      socket.on("data", (chunk) => {
        text += chunk.toString("utf8");
        if (/}\s*$/.test(text)) socket.destroy();
      });
      socket.on("error", reject);
      socket.on("close", () => resolve(text));
      socket.write(
        `POST /token HTTP/1.1\r\nHost: ${url.host}\r\n` +
          `Content-Type: application/x-www-form-urlencoded\r\nContent-Length: ${10 * 1024 * 1024}\r\n\r\n`,
      );
    });
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).toContain('"error":"invalid_request"');
    const registration = await fetch(`${server.issuer}/register`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]),
    });
    expect(registration.status).toBe(400);
    expect(await registration.json()).toMatchObject({ error: "invalid_request" });
  });

  it("parses a /mcp body once: the guard hears the body the endpoint parsed, and a tool call restarts the idle window", async () => {
    const exchange = await ownerSignsIn();
    const newest = (list: Awaited<ReturnType<typeof listSessions>>) =>
      list.reduce((a, b) => (a.createdAt >= b.createdAt ? a : b));
    const before = newest(await listSessions(server.stateDir));
    // The session's last activity is its creation until a tool call: let the clock pass it.
    await new Promise((resolve) => setTimeout(resolve, 5));
    const marker = `once-${Math.random().toString(36).slice(2)}`;
    const body = JSON.stringify({
      jsonrpc: "2.0",
      id: marker,
      method: "tools/call",
      params: { name: "t3_ambientes", arguments: { check: false } },
    });
    const parse = vi.spyOn(JSON, "parse");
    try {
      const response = await fetch(server.mcpUrl, {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          Accept: "application/json, text/event-stream",
          "MCP-Protocol-Version": "2025-06-18",
          Authorization: `Bearer ${exchange.body.access_token as string}`,
        },
        body,
      });
      expect(response.status).toBe(200);
      expect(((await response.json()) as { id: string }).id).toBe(marker);
      // Once by the endpoint's reader; the OAuth guard and both MCP eras take that value.
      expect(parse.mock.calls.filter(([text]) => text === body)).toHaveLength(1);
    } finally {
      parse.mockRestore();
    }
    const after = (await listSessions(server.stateDir)).find((session) => session.id === before.id);
    expect(Date.parse(after?.lastActivityAt ?? "")).toBeGreaterThan(Date.parse(before.lastActivityAt));
  });

  it("shows and logs a registered client's name without bidi overrides or invisible characters", async () => {
    const registered = await fetch(`${server.issuer}/register`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        client_name: "Safe\u202Eevil\u200B\u0007\nName",
        redirect_uris: [callback.url],
      }),
    });
    const body = (await registered.json()) as { client_id: string; client_name: string };
    expect(body.client_name).toBe("Safeevil Name");
    const page = await openSignInPage(
      authorizeRequest(server.issuer, {
        clientId: body.client_id,
        redirectUri: callback.url,
        resource: server.mcpUrl,
      }).url,
    );
    expect(page.html).toContain("Safeevil Name");
    expect(server.stderr()).toContain('client "Safeevil Name" registered');
    for (const unshown of ["\u202E", "\u200B", "\u0007"]) {
      expect(page.html).not.toContain(unshown);
      expect(server.stderr()).not.toContain(unshown);
    }
  });

  // Last: it damages the state directory.
  it("names a damaged revocations.json in the answer and the log, and refuses every token meanwhile", async () => {
    const exchange = await ownerSignsIn();
    const revocations = path.join(server.stateDir, "revocations.json");
    await writeFile(revocations, "{ not json", { mode: 0o600 });
    const response = await fetch(server.mcpUrl, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
        Authorization: `Bearer ${exchange.body.access_token as string}`,
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(response.status).toBe(503);
    const answer = (await response.json()) as Record<string, string>;
    expect(answer).toMatchObject({ error: "server_error", file: "revocations.json" });
    expect(answer.error_description).toContain("revocations.json is damaged");
    expect(answer.error_description).not.toContain(server.stateDir);
    const refresh = await postForm(`${server.issuer}/token`, {
      grant_type: "refresh_token",
      refresh_token: exchange.body.refresh_token as string,
      client_id: clientId,
    });
    expect(refresh).toMatchObject({ status: 503, body: { file: "revocations.json" } });
    expect(server.stderr()).toContain(`${revocations} is not JSON`);
    await expect(listSessions(server.stateDir)).rejects.toMatchObject({ code: "state_dir_invalid" });
  });
});
