import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSim, type TestEnv, type TestSim } from "./helpers.js";

let sim: TestSim;
let env: TestEnv;
let legacy: TestEnv;

beforeAll(async () => {
  sim = await startSim({
    environments: [
      { alias: "alpha", seed: "demo" },
      { alias: "legacy", seed: "demo", transitional: true },
    ],
  });
  env = sim.environment("alpha");
  legacy = sim.environment("legacy");
});
afterAll(async () => {
  await sim.close();
});

const get = (path: string, token?: string, headers: Record<string, string> = {}) =>
  fetch(`${env.url}${path}`, {
    // Protocol-2 clients always send the protocol header (a missing one is an empty 400).
    headers: {
      "x-t3-orchestration-protocol": "2",
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...headers,
    },
  });

async function firstThreadId(): Promise<string> {
  const shell = (await (await get("/api/orchestration/shell", env.readToken)).json()) as {
    threads: { id: string }[];
  };
  const id = shell.threads[0]?.id;
  if (!id) throw new Error("the demo seed has no thread");
  return id;
}

describe("descriptor", () => {
  it("serves the environment descriptor with protocol 2 and CORS", async () => {
    const response = await get("/.well-known/t3/environment");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    const body = (await response.json()) as Record<string, unknown>;
    expect(body.environmentId).toBe(env.environmentId);
    expect(body.label).toBe(env.label);
    expect(body.orchestrationProtocolVersion).toBe(2);
  });

  it("ignores the orchestrationProtocol query and omits the version on a transitional server", async () => {
    const plain = await (await fetch(`${legacy.url}/.well-known/t3/environment`)).json();
    const withQuery = await (
      await fetch(`${legacy.url}/.well-known/t3/environment?orchestrationProtocol=2`)
    ).json();
    expect(withQuery).toEqual(plain);
    expect(plain).not.toHaveProperty("orchestrationProtocolVersion");
  });
});

describe("session probe", () => {
  it("answers 200 authenticated:false without a token and with a garbage token", async () => {
    for (const token of [undefined, "not-a-real-token"]) {
      const response = await get("/api/auth/session", token);
      expect(response.status).toBe(200);
      const body = (await response.json()) as Record<string, unknown>;
      expect(body.authenticated).toBe(false);
      expect(body.auth).toMatchObject({
        policy: "loopback-browser",
        bootstrapMethods: ["one-time-token"],
        sessionMethods: ["browser-session-cookie", "bearer-access-token", "dpop-access-token"],
      });
      expect(Object.keys(body).sort()).toEqual(["auth", "authenticated"]);
    }
  });

  it("reports exactly the scopes of each standard token", async () => {
    const scopesOf = async (token: string) =>
      ((await (await get("/api/auth/session", token)).json()) as { scopes: string[] }).scopes;
    expect(await scopesOf(env.readToken)).toEqual(["orchestration:read"]);
    expect(await scopesOf(env.operateToken)).toEqual(["orchestration:read", "orchestration:operate"]);
    expect(await scopesOf(env.adminToken)).toEqual([
      "orchestration:read",
      "orchestration:operate",
      "terminal:operate",
      "review:write",
      "relay:read",
      "access:read",
      "access:write",
      "relay:write",
    ]);
  });

  it("names the session method and a 30-day expiry", async () => {
    const body = (await (await get("/api/auth/session", env.readToken)).json()) as Record<string, unknown>;
    expect(body.authenticated).toBe(true);
    expect(body.sessionMethod).toBe("bearer-access-token");
    const expiresAt = Date.parse(String(body.expiresAt));
    expect(expiresAt - env.clock.now()).toBeGreaterThan(29 * 24 * 3600 * 1000);
    expect(String(body.expiresAt)).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });
});

describe("orchestration reads", () => {
  it("serves the shell, thread and bounded reads to a read token", async () => {
    const shell = await get("/api/orchestration/shell", env.readToken);
    expect(shell.status).toBe(200);
    expect(((await shell.json()) as { schemaVersion: number }).schemaVersion).toBe(2);
    const threadId = await firstThreadId();
    for (const suffix of ["", "/bounded"]) {
      const response = await get(
        `/api/orchestration/threads/${encodeURIComponent(threadId)}${suffix}`,
        env.readToken,
      );
      expect(response.status).toBe(200);
      expect(response.headers.get("access-control-allow-origin")).toBe("*");
      expect(await response.json()).toHaveProperty("snapshotSequence");
    }
  });

  it("passes the history cursor to the model", async () => {
    const threadId = encodeURIComponent(await firstThreadId());
    const bogus = await get(`/api/orchestration/threads/${threadId}/history?cursor=bogus`, env.readToken);
    expect(bogus.status).toBe(400);
    expect(await bogus.json()).toMatchObject({ code: "invalid_request", reason: "invalid_history_cursor" });
    // Find a thread whose bounded window has older history and follow its cursor.
    const shell = (await (await get("/api/orchestration/shell", env.readToken)).json()) as {
      threads: { id: string }[];
    };
    for (const thread of shell.threads) {
      const id = encodeURIComponent(thread.id);
      const bounded = (await (
        await get(`/api/orchestration/threads/${id}/bounded`, env.readToken)
      ).json()) as {
        historyCursor: string | null;
      };
      if (bounded.historyCursor === null) continue;
      const page = await get(
        `/api/orchestration/threads/${id}/history?cursor=${encodeURIComponent(bounded.historyCursor)}`,
        env.readToken,
      );
      expect(page.status).toBe(200);
      expect(await page.json()).toHaveProperty("items");
    }
  });

  it("answers 404 thread_not_found for an unknown thread", async () => {
    const response = await get(
      "/api/orchestration/threads/925f7a4c-7d5e-4700-be3b-f6cd587ac2f7",
      env.readToken,
    );
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ code: "not_found", reason: "thread_not_found" });
  });

  it("answers 401 missing_credential and invalid_credential with a traceId", async () => {
    const missing = await get("/api/orchestration/shell");
    expect(missing.status).toBe(401);
    const missingBody = (await missing.json()) as Record<string, unknown>;
    expect(missingBody).toMatchObject({
      _tag: "EnvironmentAuthInvalidError",
      code: "auth_invalid",
      reason: "missing_credential",
    });
    expect(String(missingBody.traceId)).toMatch(/^[0-9a-f]{32}$/);
    const invalid = await get(`/api/orchestration/threads/${await firstThreadId()}`, "not-a-real-token");
    expect(invalid.status).toBe(401);
    expect(await invalid.json()).toMatchObject({ reason: "invalid_credential" });
  });

  it("answers 403 insufficient_scope to a token without orchestration:read", async () => {
    const token = env.issueToken({ scopes: ["relay:read"] });
    const response = await get("/api/orchestration/shell", token);
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({
      _tag: "EnvironmentScopeRequiredError",
      code: "insufficient_scope",
      requiredScope: "orchestration:read",
    });
  });

  it("answers a missing or wrong protocol header, or a history read without cursor, with an empty 400", async () => {
    expect((await get("/api/orchestration/shell", env.readToken)).status).toBe(200);
    const threadId = await firstThreadId();
    const bare = (path: string, headers: Record<string, string>) => fetch(`${env.url}${path}`, { headers });
    const answers = [
      await bare("/api/orchestration/shell", { authorization: `Bearer ${env.readToken}` }),
      await get("/api/orchestration/shell", env.readToken, { "x-t3-orchestration-protocol": "1" }),
      // Decoding comes before auth: no token and no header is still the decode failure.
      await bare(`/api/orchestration/threads/${threadId}`, {}),
      await get(`/api/orchestration/threads/${threadId}/history`, env.readToken),
    ];
    for (const answer of answers) {
      expect(answer.status).toBe(400);
      expect(answer.headers.get("content-type")).toBeNull();
      expect(await answer.text()).toBe("");
    }
    const onLegacy = await fetch(`${legacy.url}/api/orchestration/shell`, {
      headers: { authorization: `Bearer ${legacy.readToken}`, "x-t3-orchestration-protocol": "1" },
    });
    expect(onLegacy.status).toBe(200);
  });
});

describe("projects", () => {
  it("lists projects to a read token", async () => {
    const response = await get("/api/projects", env.readToken);
    expect(response.status).toBe(200);
    expect(Array.isArray(((await response.json()) as { projects: unknown[] }).projects)).toBe(true);
  });

  it("refuses a project mutation from a read-only token with 403 orchestration:operate", async () => {
    const response = await fetch(`${env.url}/api/projects/mutate`, {
      method: "POST",
      headers: { authorization: `Bearer ${env.readToken}`, "content-type": "application/json" },
      body: JSON.stringify({ type: "project.update", commandId: "c-1", projectId: "p", title: "no" }),
    });
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({
      code: "insufficient_scope",
      requiredScope: "orchestration:operate",
    });
  });

  it("passes a project mutation from an operate token to the model", async () => {
    const response = await fetch(`${env.url}/api/projects/mutate`, {
      method: "POST",
      headers: { authorization: `Bearer ${env.operateToken}`, "content-type": "application/json" },
      body: JSON.stringify({ type: "project.update", commandId: "c-2", projectId: "missing", title: "x" }),
    });
    expect(response.status).not.toBe(401);
    expect(response.status).not.toBe(403);
    expect(response.headers.get("content-type")).toBe("application/json");
  });
});

describe("unknown routes", () => {
  it("answers unknown GETs with the SPA fallback 503 text", async () => {
    for (const path of [
      "/api/orchestration/snapshot",
      `/api/orchestration/threads/${await firstThreadId()}/items`,
    ]) {
      const response = await get(path, env.adminToken);
      expect(response.status).toBe(503);
      expect(response.headers.get("content-type")).toBe("text/plain");
      expect(response.headers.get("access-control-allow-origin")).toBe("*");
      expect(await response.text()).toBe("No static directory configured and no dev URL set.");
    }
  });

  it("answers POST /api/orchestration/dispatch with an empty 404 and no content-type", async () => {
    const response = await fetch(`${env.url}/api/orchestration/dispatch`, {
      method: "POST",
      headers: { authorization: `Bearer ${env.adminToken}`, "content-type": "application/json" },
      body: JSON.stringify({ type: "thread.settle", commandId: "x", threadId: "y" }),
    });
    expect(response.status).toBe(404);
    expect(response.headers.get("content-type")).toBeNull();
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    expect(await response.text()).toBe("");
  });
});
