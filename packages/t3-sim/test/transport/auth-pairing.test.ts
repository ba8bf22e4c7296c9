import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startSim, type TestEnv, type TestSim } from "./helpers.js";

let sim: TestSim;
let env: TestEnv;

beforeEach(async () => {
  sim = await startSim({ environments: [{ alias: "alpha" }], clock: "manual" });
  env = sim.environment("alpha");
});
afterEach(async () => {
  await sim.close();
});

function exchange(code: string, scope?: string) {
  const form = new URLSearchParams({
    grant_type: "urn:ietf:params:oauth:grant-type:token-exchange",
    subject_token: code,
    subject_token_type: "urn:t3:params:oauth:token-type:environment-bootstrap",
    requested_token_type: "urn:ietf:params:oauth:token-type:access_token",
    client_label: "test",
  });
  if (scope !== undefined) form.set("scope", scope);
  return fetch(`${env.url}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: form.toString(),
  });
}

describe("pairing codes", () => {
  it("issues 12-character codes from the T3 alphabet", () => {
    for (let i = 0; i < 20; i++)
      expect(env.createPairingCode()).toMatch(/^[23456789ABCDEFGHJKLMNPQRSTUVWXYZ]{12}$/);
  });

  it("exchanges a code once for a narrowed bearer token shaped like fixture 05", async () => {
    const code = env.createPairingCode();
    const response = await exchange(code, "orchestration:read");
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    const body = (await response.json()) as Record<string, unknown>;
    expect(Object.keys(body)).toEqual([
      "access_token",
      "issued_token_type",
      "token_type",
      "expires_in",
      "scope",
    ]);
    expect(body).toMatchObject({
      issued_token_type: "urn:ietf:params:oauth:token-type:access_token",
      token_type: "Bearer",
      expires_in: 2591999,
      scope: "orchestration:read",
    });
    const session = await fetch(`${env.url}/api/auth/session`, {
      headers: { authorization: `Bearer ${String(body.access_token)}` },
    });
    expect(((await session.json()) as { scopes: string[] }).scopes).toEqual(["orchestration:read"]);

    const again = await exchange(code, "orchestration:read");
    expect(again.status).toBe(401);
    expect(again.headers.get("cache-control")).toBe("no-store");
    expect(await again.json()).toMatchObject({
      _tag: "EnvironmentAuthInvalidError",
      code: "auth_invalid",
      reason: "invalid_credential",
    });
  });

  it("grants the whole standard client bundle when no scope is asked for", async () => {
    const body = (await (await exchange(env.createPairingCode())).json()) as { scope: string };
    expect(body.scope).toBe(
      "orchestration:read orchestration:operate terminal:operate review:write relay:read",
    );
  });

  it("refuses an unknown code like a reused one", async () => {
    const response = await exchange("NOTAREALCODE", "orchestration:read");
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ reason: "invalid_credential" });
  });

  it("refuses a scope the grant does not hold with 400 scope_not_granted and keeps the code", async () => {
    const code = env.createPairingCode({ scopes: ["orchestration:read"] });
    const refused = await exchange(code, "orchestration:read orchestration:operate");
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({
      _tag: "EnvironmentRequestInvalidError",
      code: "invalid_request",
      reason: "scope_not_granted",
    });
    expect((await exchange(code, "orchestration:read")).status).toBe(200);
  });

  it("refuses an unknown scope name with 400 invalid_scope", async () => {
    const response = await exchange(env.createPairingCode(), "orchestration:everything");
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ reason: "invalid_scope" });
  });

  it("expires a code after five minutes of simulated time", async () => {
    const code = env.createPairingCode();
    env.clock.advance(5 * 60 * 1000);
    expect((await exchange(code)).status).toBe(401);
  });
});

describe("pairing-token endpoint", () => {
  const create = (token: string, body: unknown) =>
    fetch(`${env.url}/api/auth/pairing-token`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });

  it("lets an administrative token create a code that exchanges once", async () => {
    const response = await create(env.adminToken, { label: "phone", scopes: ["orchestration:read"] });
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    const body = (await response.json()) as {
      id: string;
      credential: string;
      label: string;
      expiresAt: string;
    };
    expect(body.label).toBe("phone");
    expect(Date.parse(body.expiresAt) - env.clock.now()).toBe(5 * 60 * 1000);
    expect((await exchange(body.credential)).status).toBe(200);
    expect((await exchange(body.credential)).status).toBe(401);
  });

  it("needs access:write", async () => {
    const response = await create(env.operateToken, {});
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({
      code: "insufficient_scope",
      requiredScope: "access:write",
    });
  });

  it("never delegates a scope the caller lacks", async () => {
    const token = env.issueToken({ scopes: ["access:write", "orchestration:read"] });
    const response = await create(token, { scopes: ["orchestration:operate"] });
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({ requiredScope: "orchestration:operate" });
  });
});

describe("websocket tickets and token expiry", () => {
  it("mints a 5-minute ticket for any live token, no-store", async () => {
    const response = await fetch(`${env.url}/api/auth/websocket-ticket`, {
      method: "POST",
      headers: { authorization: `Bearer ${env.readToken}` },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    const body = (await response.json()) as { ticket: string; expiresAt: string };
    expect(typeof body.ticket).toBe("string");
    expect(Date.parse(body.expiresAt) - env.clock.now()).toBe(5 * 60 * 1000);
  });

  it("refuses a ticket request without a token with 401 missing_credential and no no-store", async () => {
    const response = await fetch(`${env.url}/api/auth/websocket-ticket`, { method: "POST" });
    expect(response.status).toBe(401);
    expect(response.headers.get("cache-control")).toBeNull();
    expect(await response.json()).toMatchObject({ reason: "missing_credential" });
  });

  it("treats a token past its expiry on the environment clock as invalid", async () => {
    const token = env.issueToken({ scopes: ["orchestration:read"], ttlMs: 60_000 });
    const shell = () =>
      fetch(`${env.url}/api/orchestration/shell`, {
        headers: { authorization: `Bearer ${token}`, "x-t3-orchestration-protocol": "2" },
      });
    expect((await shell()).status).toBe(200);
    env.clock.advance(60_000);
    const expired = await shell();
    expect(expired.status).toBe(401);
    expect(await expired.json()).toMatchObject({ reason: "invalid_credential" });
    const session = await fetch(`${env.url}/api/auth/session`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(((await session.json()) as { authenticated: boolean }).authenticated).toBe(false);
  });
});
