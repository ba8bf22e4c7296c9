import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CONTENT_SECURITY_POLICY } from "../../src/security/index.js";
import { pageHeaders, startTestGate, TEST_PORT, type TestGate } from "./support/gate.js";

let gate: TestGate;
beforeEach(async () => {
  gate = await startTestGate();
});
afterEach(async () => {
  await gate.close();
});

function post(path: string, body: unknown, headers: Record<string, string> = pageHeaders()) {
  return gate.app.request(path, { method: "POST", headers, body: JSON.stringify(body) });
}

/** Opens a lease directly, so a test can see whether an attack closes it. */
function openLease() {
  return gate.keeper.grant({
    scope: { scopeVersion: 2, runtimeMode: "full-access", environments: [] },
    scopeFingerprint: "f",
    credentialId: "c",
  });
}

describe("Host check (DNS rebinding)", () => {
  it.each([
    ["a rebound name", "evil.example:7433"],
    ["127.0.0.1 instead of localhost", `127.0.0.1:${TEST_PORT}`],
    ["another port", "localhost:7434"],
    ["no port", "localhost"],
    ["the IPv6 loopback literal", `[::1]:${TEST_PORT}`],
    ["a trailing dot", `localhost.:${TEST_PORT}`],
  ])(
    "refuses %s with a 403 that only names the address to open, even on a GET of the page",
    async (_name, host) => {
      const response = await gate.app.request("/", { headers: { host } });
      expect(response.status).toBe(403);
      expect(response.headers.get("content-type")).toBe("text/plain; charset=utf-8");
      expect(await response.text()).toBe(
        `The write gate answers only at http://localhost:${TEST_PORT}/ - open that address.\n`,
      );
      expect(response.headers.get("content-security-policy")).toBe(CONTENT_SECURITY_POLICY);
    },
  );

  it("takes the one name in any case (a Host is case-insensitive; browsers send it lowered)", async () => {
    const response = await gate.app.request("/", { headers: { host: `LocalHost:${TEST_PORT}` } });
    expect(response.status).toBe(200);
  });

  it("refuses a revoke sent with a rebound Host and leaves the lease open", async () => {
    openLease();
    const response = await post("/api/revoke", {}, { ...pageHeaders(), host: "attacker.test:7433" });
    expect(response.status).toBe(403);
    expect(gate.keeper.list()).toHaveLength(1);
  });

  it("refuses a peer that is not on loopback, and serves one that is", async () => {
    const remote = { incoming: { socket: { remoteAddress: "10.1.2.3" } } };
    expect((await gate.app.request("/", { headers: pageHeaders() }, remote)).status).toBe(403);
    const local = { incoming: { socket: { remoteAddress: "::ffff:127.0.0.1" } } };
    expect((await gate.app.request("/", { headers: pageHeaders() }, local)).status).toBe(200);
  });

  it("refuses a request with no Host at all", async () => {
    const response = await gate.app.request("/app.js");
    expect(response.status).toBe(403);
  });
});

describe("state-changing requests", () => {
  it.each([
    ["another origin", { origin: "http://evil.example" }],
    ["the origin of 127.0.0.1", { origin: `http://127.0.0.1:${TEST_PORT}` }],
    ["an https origin", { origin: `https://localhost:${TEST_PORT}` }],
    ["the null origin", { origin: "null" }],
  ])("refuses %s with origin_or_method_invalid and revokes nothing", async (_name, change) => {
    openLease();
    const response = await post("/api/revoke", {}, { ...pageHeaders(), ...change });
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({ error: "origin_or_method_invalid" });
    expect(gate.keeper.list()).toHaveLength(1);
  });

  it("refuses a POST without an Origin", async () => {
    openLease();
    const { origin: _origin, ...headers } = pageHeaders();
    const response = await post("/api/revoke", {}, headers);
    expect(response.status).toBe(403);
    expect(gate.keeper.list()).toHaveLength(1);
  });

  it.each([
    "text/plain",
    "application/x-www-form-urlencoded",
    "multipart/form-data",
    "application/json-patch+json",
  ])("refuses the content type %s (what a cross-site form could send)", async (type) => {
    openLease();
    const response = await post("/api/revoke", {}, { ...pageHeaders(), "content-type": type });
    expect(response.status).toBe(403);
    expect(gate.keeper.list()).toHaveLength(1);
  });

  it("accepts JSON with a utf-8 charset", async () => {
    openLease();
    const response = await post(
      "/api/revoke",
      {},
      { ...pageHeaders(), "content-type": "application/json; charset=utf-8" },
    );
    expect(response.status).toBe(200);
    expect(gate.keeper.list()).toEqual([]);
  });

  it("never changes anything on a GET of a state-changing route", async () => {
    openLease();
    for (const path of [
      "/api/revoke",
      "/api/revoke?x=1",
      "/api/enrollment/options",
      "/api/requests/approve",
    ]) {
      const response = await gate.app.request(path, { headers: pageHeaders() });
      expect(response.status).toBe(403);
      expect(await response.json()).toEqual({ error: "origin_or_method_invalid" });
    }
    expect(gate.keeper.list()).toHaveLength(1);
  });

  it.each(["PUT", "DELETE", "PATCH"])("refuses %s on the revoke route", async (method) => {
    openLease();
    const response = await gate.app.request("/api/revoke", { method, headers: pageHeaders(), body: "{}" });
    expect(response.status).toBe(403);
    expect(gate.keeper.list()).toHaveLength(1);
  });

  it("refuses a body over 64 KiB with 413 before acting on it", async () => {
    openLease();
    const response = await post("/api/revoke", { padding: "x".repeat(70_000) });
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ error: "body_too_large" });
    expect(gate.keeper.list()).toHaveLength(1);
  });

  it("refuses a chunked body over the cap even without a Content-Length", async () => {
    const chunk = new TextEncoder().encode("x".repeat(40_000));
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(chunk);
        controller.enqueue(chunk);
        controller.close();
      },
    });
    const response = await gate.app.request("/api/state", {
      method: "POST",
      headers: pageHeaders(),
      body: stream,
      duplex: "half",
    } as RequestInit);
    expect(response.status).toBe(413);
  });

  it("refuses a body that is not UTF-8 with body_invalid and revokes nothing", async () => {
    openLease();
    const response = await gate.app.request("/api/revoke", {
      method: "POST",
      headers: pageHeaders(),
      body: new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: "body_invalid" });
    expect(gate.keeper.list()).toHaveLength(1);
  });

  it("refuses malformed JSON and unknown fields with body_invalid", async () => {
    const broken = await gate.app.request("/api/state", {
      method: "POST",
      headers: pageHeaders(),
      body: "{",
    });
    expect(await broken.json()).toEqual({ error: "body_invalid" });
    const extra = await post("/api/state", { admin: true });
    expect(extra.status).toBe(400);
    expect(await extra.json()).toEqual({ error: "body_invalid" });
  });

  it("answers 404 not_found for an unknown route that passed the checks", async () => {
    const response = await post("/api/nothing", {});
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: "not_found" });
  });
});

describe("rate limit", () => {
  it("answers 429 rate_limited after 60 page calls in a minute, and again after the window", async () => {
    const view = () => post("/api/requests/view", { requestId: "x".repeat(43) });
    for (let index = 0; index < 60; index += 1) expect((await view()).status).toBe(404);
    const limited = await view();
    expect(limited.status).toBe(429);
    expect(await limited.json()).toEqual({ error: "rate_limited" });
    gate.clock.advance(60_000);
    expect((await view()).status).toBe(404);
  });

  it("keeps Revoke all, End and the page's state outside the budget: they answer while it is spent", async () => {
    const lease = openLease();
    for (let index = 0; index < 60; index += 1) {
      await post("/api/requests/view", { requestId: "x".repeat(43) });
    }
    expect((await post("/api/requests/view", { requestId: "x".repeat(43) })).status).toBe(429);
    for (let index = 0; index < 100; index += 1) expect((await post("/api/state", {})).status).toBe(200);
    const ended = await post("/api/leases/end", { leaseId: lease.leaseId });
    expect(await ended.json()).toEqual({ ended: true });
    expect((await post("/api/revoke", {})).status).toBe(200);
  });

  it("charges nothing for refused requests or static GETs", async () => {
    openLease();
    for (let index = 0; index < 100; index += 1) {
      expect(
        (await post("/api/revoke", {}, { ...pageHeaders(), origin: "http://evil.example" })).status,
      ).toBe(403);
      expect((await post("/api/revoke", {}, { ...pageHeaders(), "content-type": "text/plain" })).status).toBe(
        403,
      );
      expect((await gate.app.request("/api/revoke", { headers: pageHeaders() })).status).toBe(403);
      expect((await gate.app.request("/", { headers: pageHeaders() })).status).toBe(200);
    }
    expect((await post("/api/revoke", {})).status).toBe(200);
    expect(gate.keeper.list()).toEqual([]);
  });

  it("keeps the relay's budget apart from the page's", async () => {
    const withRelay = await startTestGate({
      rateLimitPerMinute: 2,
      relayRateLimitPerMinute: 3,
      relay: async (c, readBody) => c.json({ body: await readBody() }),
    });
    try {
      const { origin: _origin, ...machine } = pageHeaders();
      const relay = () => withRelay.app.request("/relay", { method: "POST", headers: machine, body: "{}" });
      const page = () =>
        withRelay.app.request("/api/requests/view", {
          method: "POST",
          headers: pageHeaders(),
          body: JSON.stringify({ requestId: "x".repeat(43) }),
        });
      for (let index = 0; index < 3; index += 1) expect((await relay()).status).toBe(200);
      expect((await relay()).status).toBe(429);
      expect((await page()).status).toBe(404);
      expect((await page()).status).toBe(404);
      expect((await page()).status).toBe(429);
      withRelay.clock.advance(60_000);
      expect((await relay()).status).toBe(200);
    } finally {
      await withRelay.close();
    }
  });

  it("does not charge the relay's budget when its handler refuses before reading the body", async () => {
    const withRelay = await startTestGate({
      relayRateLimitPerMinute: 1,
      relay: async (c, readBody) =>
        c.req.header("x-ok") === "1"
          ? c.json({ body: await readBody() })
          : c.json({ error: "channel_unverified" }, 401),
    });
    try {
      const { origin: _origin, ...machine } = pageHeaders();
      for (let index = 0; index < 5; index += 1) {
        const refused = await withRelay.app.request("/relay", {
          method: "POST",
          headers: machine,
          body: "{}",
        });
        expect(refused.status).toBe(401);
      }
      const ok = await withRelay.app.request("/relay", {
        method: "POST",
        headers: { ...machine, "x-ok": "1" },
        body: "{}",
      });
      expect(ok.status).toBe(200);
    } finally {
      await withRelay.close();
    }
  });
});

describe("headers and page", () => {
  it("sets no-store, nosniff, no-referrer and a strict CSP on pages, scripts and errors", async () => {
    const answers = await Promise.all([
      gate.app.request("/", { headers: pageHeaders() }),
      gate.app.request("/app.js", { headers: pageHeaders() }),
      gate.app.request("/webauthn.js", { headers: pageHeaders() }),
      post("/api/nothing", {}),
      post("/api/state", {}, { ...pageHeaders(), origin: "http://evil.example" }),
    ]);
    for (const response of answers) {
      expect(response.headers.get("cache-control")).toBe("no-store");
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
      expect(response.headers.get("referrer-policy")).toBe("no-referrer");
      const csp = response.headers.get("content-security-policy") ?? "";
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toContain("unsafe-inline");
    }
  });

  it("serves a page with no inline script and the WebAuthn bundle from the installed package", async () => {
    const html = await (await gate.app.request("/", { headers: pageHeaders() })).text();
    expect(html).toContain('<script src="/app.js"');
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/https?:\/\//);
    const bundle = await gate.app.request("/webauthn.js", { headers: pageHeaders() });
    expect(bundle.headers.get("content-type")).toContain("text/javascript");
    expect(await bundle.text()).toContain("SimpleWebAuthnBrowser");
  });

  it("shows the enrollment state without a passkey and never reveals the enrollment code", async () => {
    const response = await post("/api/state", {});
    const text = await response.text();
    expect(JSON.parse(text)).toEqual({
      enrolled: false,
      passkeys: [],
      leases: [],
      leaseHistory: [],
      pendingRequests: [],
      // The printed code would register the first passkey; no start-up warning was given.
      gate: { codeEnrollment: true, warnings: [] },
    });
    expect(text).not.toContain("ABCD");
    expect(gate.logs.join("\n")).not.toContain("ABCD");
  });
});

describe("the relay slot", () => {
  it("mounts the machine side's handler on POST /relay with the Host check and no Origin", async () => {
    const seen: unknown[] = [];
    const withRelay = await startTestGate({
      relay: async (c, readBody) => {
        seen.push(await readBody());
        return c.json({ ok: true });
      },
    });
    try {
      const { origin: _origin, ...headers } = pageHeaders();
      const ok = await withRelay.app.request("/relay", { method: "POST", headers, body: '{"op":"status"}' });
      expect(await ok.json()).toEqual({ ok: true });
      const fromBrowser = await withRelay.app.request("/relay", {
        method: "POST",
        headers: pageHeaders(),
        body: '{"op":"status"}',
      });
      expect(fromBrowser.status).toBe(403);
      const rebound = await withRelay.app.request("/relay", {
        method: "POST",
        headers: { ...headers, host: "evil.example:7433" },
        body: '{"op":"status"}',
      });
      expect(rebound.status).toBe(403);
      const byGet = await withRelay.app.request("/relay", { headers });
      expect(byGet.status).toBe(403);
      expect(seen).toEqual([{ op: "status" }]);
    } finally {
      await withRelay.close();
    }
  });
});
