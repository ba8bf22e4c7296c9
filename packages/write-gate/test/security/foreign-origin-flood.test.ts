/**
 * Issue 11 item 2: a page on another origin flooding the gate (the `no-cors` POSTs any site can
 * fire at localhost) must not lock the human out. Over real HTTP, so every request shares the
 * loopback address the page's own requests come from.
 */

import { type GateHarness, startGateHarness } from "@t3-connector/test-support/gate-harness";
import { type HttpAnswer, postJson, rawRequest } from "@t3-connector/test-support/gate-http";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

const FLOOD = 150;

let harness: GateHarness;
beforeEach(async () => {
  harness = await startGateHarness();
});
afterEach(async () => {
  await harness.close();
});

/** What a `fetch(url, { method: "POST", mode: "no-cors", body: "x" })` from evil.example sends. */
function foreignPost(path: string): Promise<HttpAnswer> {
  const port = harness.gate.port;
  return rawRequest({
    port,
    method: "POST",
    path,
    body: "x",
    headers: { host: `localhost:${port}`, origin: "http://evil.example", "content-type": "text/plain" },
  });
}

function pagePost(path: string): Promise<HttpAnswer> {
  const port = harness.gate.port;
  return postJson(port, path, {}, { origin: `http://localhost:${port}` });
}

describe("a foreign-origin flood", () => {
  it("is refused for free: the real page still loads, reads its state and revokes the lease", async () => {
    await harness.grantLease();
    const paths = ["/api/revoke", "/api/state", "/api/requests/approve", "/relay", "/nothing"];
    const answers: HttpAnswer[] = [];
    for (let index = 0; index < FLOOD; index += 1)
      answers.push(await foreignPost(paths[index % paths.length] ?? "/"));
    expect(new Set(answers.map((answer) => answer.status))).toEqual(new Set([403]));
    expect(harness.gate.lease.list()).toHaveLength(1);

    const port = harness.gate.port;
    for (const path of ["/", "/app.js", "/app.css", "/webauthn.js"]) {
      const page = await rawRequest({ port, method: "GET", path, headers: { host: `localhost:${port}` } });
      expect(page.status).toBe(200);
    }
    const state = await pagePost("/api/state");
    expect(state.status).toBe(200);
    expect(state.body).toMatchObject({ leases: [{ active: true }] });
    const revoke = await pagePost("/api/revoke");
    expect(revoke.status).toBe(200);
    expect(revoke.body).toEqual({ active: false });
    expect(harness.gate.lease.list()).toEqual([]);
  });

  it("of static GETs (what <img> tags send, with no Origin) cannot block the page either", async () => {
    const port = harness.gate.port;
    for (let index = 0; index < FLOOD; index += 1) {
      const answer = await rawRequest({
        port,
        method: "GET",
        path: "/app.css",
        headers: { host: `localhost:${port}` },
      });
      expect(answer.status).toBe(200);
    }
    await harness.grantLease();
    expect((await pagePost("/api/revoke")).status).toBe(200);
    expect(harness.gate.lease.list()).toEqual([]);
  });

  it("does not spend the relay's budget, and the bridge's calls do not spend the page's", async () => {
    for (let index = 0; index < FLOOD; index += 1) await foreignPost("/api/state");
    for (let index = 0; index < 70; index += 1) {
      expect((await harness.relay({ op: "lease" })).status).toBe(200);
    }
    expect((await pagePost("/api/state")).status).toBe(200);
  });
});

describe("the relay's door", () => {
  it("refuses a caller without the capability before reading its body, malformed or not", async () => {
    const port = harness.gate.port;
    const malformed = await postJson(port, "/relay", "{not json");
    expect(malformed.status).toBe(401);
    expect(malformed.body).toEqual({ error: "channel_unverified" });
    const oversized = await postJson(
      port,
      "/relay",
      JSON.stringify({ op: "lease", pad: "x".repeat(200_000) }),
    );
    expect(oversized.status).toBe(401);
    expect(oversized.body).toEqual({ error: "channel_unverified" });
    const wrong = await harness.relay("{not json", "0".repeat(64));
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({ error: "channel_unverified" });
    // With the capability the same malformed body is reported as such.
    const authenticated = await harness.relay("{not json");
    expect(authenticated.status).toBe(400);
  });
});
