/**
 * The approval page's budget per client behind a trusted proxy (ADR 0044), attacked over real
 * sockets: the README's Caddy and nginx recipes in front of `serve --http --trusted-proxy
 * 127.0.0.1`, which forwards `/approve…` to a real gate. Clients come from their own loopback
 * addresses (127.0.0.2, …), as distinct hosts would. Asking for a challenge is the budgeted call
 * (30 a minute per client): answered 400 here (no passkey is enrolled, so nothing goes further)
 * until the client's budget is spent, then 429.
 */

import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { FORWARD_CAPABILITY_HEADER, FORWARDED_CLIENT_HEADER } from "@t3-connector/core/http-edge";
import { expectBudgetSpent, postFrom } from "@t3-connector/test-support/budgeted-post";
import { freePort } from "@t3-connector/test-support/free-port";
import { type OAuthServe, startOAuthServe } from "@t3-connector/test-support/oauth-serve";
import { type RealGate, startRealGate } from "@t3-connector/test-support/real-gate";
import { nginxFromReadme, README_PROXIES, type ReverseProxy } from "@t3-connector/test-support/reverse-proxy";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const BUDGET = 30;

interface Asked {
  /** Where the TCP connection goes (the proxy, serve or the gate). */
  readonly port: number;
  /** The client's own loopback address. */
  readonly from: string;
  readonly host: string;
  readonly headers?: Record<string, string>;
}

/** One `POST /approve/api/options` (the budgeted call); answers its status. */
function ask(origin: string, asked: Asked): Promise<number> {
  return postFrom({
    ...asked,
    origin,
    path: "/approve/api/options",
    body: JSON.stringify({ decision: "deny", requestId: "no-such-request" }),
  });
}

/** The budget spent: `BUDGET` answers 400, then a 429. `vary` changes each request. */
function spend(origin: string, asked: Asked, vary: (n: number) => Record<string, string>) {
  return expectBudgetSpent(BUDGET, (n) =>
    ask(origin, { ...asked, headers: { ...asked.headers, ...vary(n) } }),
  );
}

describe.each(README_PROXIES)("the approval budget per client, behind $name", ({ start }) => {
  let gate: RealGate;
  let serve: OAuthServe;
  let proxy: ReverseProxy;
  let issuer: string;
  let issuerHost: string;
  let servePort: number;
  let oauthStateDir: string;

  beforeAll(async () => {
    const proxyPort = await freePort();
    issuerHost = `localhost:${proxyPort}`;
    issuer = `http://${issuerHost}`;
    oauthStateDir = path.join(await mkdtemp(path.join(os.tmpdir(), "t3c-trusted-proxy-")), "oauth");
    gate = await startRealGate({ remoteApproval: { origin: issuer, oauthStateDir } });
    serve = await startOAuthServe(
      { issuer, stateDir: oauthStateDir },
      { env: { T3_CONNECTOR_WRITE_CONFIG: gate.config.path }, trustedProxies: ["127.0.0.1"] },
    );
    servePort = Number(new URL(serve.ready.healthz).port);
    proxy = await start(proxyPort, servePort);
  }, 120_000);

  afterAll(async () => {
    await proxy?.close();
    await serve?.close();
    await gate?.close();
    if (oauthStateDir !== undefined) await rm(path.dirname(oauthStateDir), { recursive: true, force: true });
  });

  it("a flood from one client behind the trusted proxy leaves another client's budget whole", async () => {
    const viaProxy = { port: Number(new URL(issuer).port), host: issuerHost };
    // Each flooding request also claims another address; the proxy's own hop names the client.
    await spend(issuer, { ...viaProxy, from: "127.0.0.2" }, (n) => ({
      "x-forwarded-for": `198.51.100.${n}`,
    }));
    expect(
      await ask(issuer, { ...viaProxy, from: "127.0.0.2", headers: { "x-forwarded-for": "127.0.0.3" } }),
    ).toBe(429);
    expect(await ask(issuer, { ...viaProxy, from: "127.0.0.3" })).toBe(400);
  });

  it("ignores a forged X-Forwarded-For from a peer that is not a trusted proxy, and says once how to trust one", async () => {
    const direct = { port: servePort, host: issuerHost, from: "127.0.0.4" };
    await spend(issuer, direct, (n) => ({
      "x-forwarded-for": `203.0.113.${n}`,
      forwarded: `for=192.0.2.${n}`,
    }));
    // Another client is untouched: the flood was counted against its sender alone.
    expect(await ask(issuer, { ...direct, from: "127.0.0.5" })).toBe(400);
    const advice = serve.stderr().split("--trusted-proxy 127.0.0.4").length - 1;
    expect(advice).toBe(1);
  });

  it("ignores the gate's internal client header set by a client, at serve and at the gate", async () => {
    // Through serve: its own header replaces whatever the client wrote.
    const direct = { port: servePort, host: issuerHost, from: "127.0.0.6" };
    await spend(issuer, direct, (n) => ({
      [FORWARDED_CLIENT_HEADER]: `203.0.113.${n}`,
      [FORWARD_CAPABILITY_HEADER]: "A".repeat(43),
    }));
    // At the gate's loopback port: without this boot's capability the header counts for nothing.
    const atGate = { port: gate.config.port, host: `localhost:${gate.config.port}`, from: "127.0.0.1" };
    await spend(issuer, atGate, (n) => ({
      [FORWARDED_CLIENT_HEADER]: `203.0.113.${n}`,
      [FORWARD_CAPABILITY_HEADER]: "A".repeat(43),
    }));
    // The control: only the capability makes the gate count the named client apart.
    const capability = await gate.capability();
    const vouched = { [FORWARDED_CLIENT_HEADER]: "203.0.113.200", [FORWARD_CAPABILITY_HEADER]: capability };
    expect(await ask(issuer, { ...atGate, headers: vouched })).toBe(400);
  });
});

describe("without --trusted-proxy, behind nginx", () => {
  let gate: RealGate;
  let serve: OAuthServe;
  let proxy: ReverseProxy;
  let issuer: string;
  let oauthStateDir: string;

  beforeAll(async () => {
    const proxyPort = await freePort();
    issuer = `http://localhost:${proxyPort}`;
    oauthStateDir = path.join(await mkdtemp(path.join(os.tmpdir(), "t3c-untrusted-proxy-")), "oauth");
    gate = await startRealGate({ remoteApproval: { origin: issuer, oauthStateDir } });
    serve = await startOAuthServe(
      { issuer, stateDir: oauthStateDir },
      { env: { T3_CONNECTOR_WRITE_CONFIG: gate.config.path } },
    );
    proxy = await nginxFromReadme(proxyPort, Number(new URL(serve.ready.healthz).port));
  }, 120_000);

  afterAll(async () => {
    await proxy?.close();
    await serve?.close();
    await gate?.close();
    if (oauthStateDir !== undefined) await rm(path.dirname(oauthStateDir), { recursive: true, force: true });
  });

  it("keeps one budget for the proxy as before, and says once which address to trust", async () => {
    const viaProxy = { port: Number(new URL(issuer).port), host: new URL(issuer).host };
    await spend(issuer, { ...viaProxy, from: "127.0.0.2" }, () => ({}));
    expect(await ask(issuer, { ...viaProxy, from: "127.0.0.3" })).toBe(429);
    const advice = serve.stderr().split("start serve with --trusted-proxy 127.0.0.1").length - 1;
    expect(advice).toBe(1);
  });
});
