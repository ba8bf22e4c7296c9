import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CONTENT_SECURITY_POLICY } from "../../src/security/index.js";
import { pageHeaders, startTestGate, type TestGate } from "./support/gate.js";

let gate: TestGate;
beforeEach(async () => {
  gate = await startTestGate();
});
afterEach(async () => {
  await gate.close();
});

describe("security headers (Hono's secure headers)", () => {
  it("frames nothing, isolates the page, pins no HSTS on plain http, on answers and refusals alike", async () => {
    const answers = await Promise.all([
      gate.app.request("/", { headers: pageHeaders() }),
      gate.app.request("/api/state", {
        method: "POST",
        headers: { ...pageHeaders(), origin: "http://evil.example" },
      }),
      gate.app.request("/", { headers: { host: "evil.example" } }),
    ]);
    for (const response of answers) {
      expect(response.headers.get("content-security-policy")).toBe(CONTENT_SECURITY_POLICY);
      expect(response.headers.get("x-frame-options")).toBe("DENY");
      expect(response.headers.get("cross-origin-opener-policy")).toBe("same-origin");
      expect(response.headers.get("cross-origin-resource-policy")).toBe("same-origin");
      expect(response.headers.get("cache-control")).toBe("no-store");
      expect(response.headers.get("strict-transport-security")).toBeNull();
    }
  });

  it("refuses a declared body over the page's 64 KiB unread, with body_too_large", async () => {
    const response = await gate.app.request("/api/state", {
      method: "POST",
      headers: { ...pageHeaders(), "content-length": String(70_000) },
      body: "{}",
    });
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ error: "body_too_large" });
  });
});
