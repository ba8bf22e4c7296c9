/**
 * The OAuth profile's sign-in budgets per client behind a trusted proxy (ADR 0044, amended),
 * attacked over real sockets: the README's Caddy and nginx recipes in front of `serve --http
 * --oauth --trusted-proxy 127.0.0.1`. Clients come from their own loopback addresses (127.0.0.2,
 * 127.1.x.y, …), as distinct hosts would. The budgeted call is the phone's enrollment with a code
 * (`POST /oauth/passkeys/enroll/options`, 30 a minute per client, charged before the code is
 * looked at): a wrong code is answered 400 until the client's budget is spent, then 429.
 */

import { expectBudgetSpent, postFrom } from "@t3-connector/test-support/budgeted-post";
import { freePort } from "@t3-connector/test-support/free-port";
import { type OAuthServe, startOAuthServe } from "@t3-connector/test-support/oauth-serve";
import { nginxFromReadme, README_PROXIES, type ReverseProxy } from "@t3-connector/test-support/reverse-proxy";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const BUDGET = 30;
/** Addresses core's request budget keeps in one table (RequestBudget's default). */
const TABLE_ENTRIES = 1000;

interface Asked {
  /** Where the TCP connection goes (the proxy, or serve itself). */
  readonly port: number;
  /** The client's own loopback address. */
  readonly from: string;
  readonly headers?: Record<string, string>;
}

interface Target {
  readonly issuer: string;
  readonly host: string;
}

/** One enrollment attempt with a wrong code; answers its status. */
function enroll(target: Target, asked: Asked): Promise<number> {
  return postFrom({
    ...asked,
    host: target.host,
    origin: target.issuer,
    path: "/oauth/passkeys/enroll/options",
    body: JSON.stringify({ code: "WRNG-CODE-FROM-THE-FLOOD" }),
  });
}

/** The budget spent: `BUDGET` answers 400, then a 429. `vary` changes each request's headers. */
function spend(target: Target, asked: Asked, vary: (n: number) => Record<string, string>) {
  return expectBudgetSpent(BUDGET, (n) =>
    enroll(target, { ...asked, headers: { ...asked.headers, ...vary(n) } }),
  );
}

describe.each(README_PROXIES)("the sign-in budget per client, behind $name", ({ start }) => {
  let serve: OAuthServe;
  let proxy: ReverseProxy;
  let target: Target;
  let proxyPort: number;
  let servePort: number;

  beforeAll(async () => {
    proxyPort = await freePort();
    target = { issuer: `http://localhost:${proxyPort}`, host: `localhost:${proxyPort}` };
    serve = await startOAuthServe({ issuer: target.issuer }, { trustedProxies: ["127.0.0.1"] });
    servePort = Number(new URL(serve.ready.healthz).port);
    proxy = await start(proxyPort, servePort);
  }, 120_000);

  afterAll(async () => {
    await proxy?.close();
    await serve?.close();
  });

  it("a client that spends its budget behind the proxy leaves another client's whole, however it forges", async () => {
    // Each request also claims another address; the proxy's own hop names the sender.
    await spend(target, { port: proxyPort, from: "127.0.0.2" }, (n) => ({
      "x-forwarded-for": `198.51.100.${n}`,
      forwarded: `for=192.0.2.${n}`,
    }));
    // Naming the other client does not spend that client's budget either.
    expect(
      await enroll(target, {
        port: proxyPort,
        from: "127.0.0.2",
        headers: { "x-forwarded-for": "127.0.0.3" },
      }),
    ).toBe(429);
    expect(await enroll(target, { port: proxyPort, from: "127.0.0.3" })).toBe(400);
  });

  it("never believes forwarding headers from a peer that is not a trusted proxy, and says once which to trust", async () => {
    await spend(target, { port: servePort, from: "127.0.0.4" }, (n) => ({
      "x-forwarded-for": `203.0.113.${n}`,
      forwarded: `for=192.0.2.${n}`,
    }));
    // Another client is untouched: the flood was counted against its sender's socket alone.
    expect(await enroll(target, { port: servePort, from: "127.0.0.5" })).toBe(400);
    expect(serve.stderr().split("start serve with --trusted-proxy 127.0.0.4").length - 1).toBe(1);
  });

  it("counts the addresses of one IPv6 /64 a trusted proxy names as one client", async () => {
    // serve's own trusted peer (127.0.0.1) names the clients, as a proxy with IPv6 clients would.
    await spend(target, { port: servePort, from: "127.0.0.1" }, (n) => ({
      "x-forwarded-for": `2001:db8:1:2::${(n + 1).toString(16)}`,
    }));
    const neighbour = { "x-forwarded-for": "2001:db8:1:3::1" };
    expect(await enroll(target, { port: servePort, from: "127.0.0.1", headers: neighbour })).toBe(400);
  });
});

describe("a flood of distinct client addresses behind the trusted proxy (nginx)", () => {
  let serve: OAuthServe;
  let proxy: ReverseProxy;
  let target: Target;
  let proxyPort: number;

  beforeAll(async () => {
    proxyPort = await freePort();
    target = { issuer: `http://localhost:${proxyPort}`, host: `localhost:${proxyPort}` };
    serve = await startOAuthServe({ issuer: target.issuer }, { trustedProxies: ["127.0.0.1"] });
    proxy = await nginxFromReadme(proxyPort, Number(new URL(serve.ready.healthz).port));
  }, 120_000);

  afterAll(async () => {
    await proxy?.close();
    await serve?.close();
  });

  it("keeps the table bounded, and neither frees a spent budget nor takes a live one to make room", async () => {
    const viaProxy = { port: proxyPort };
    // The owner used the route once this minute; a hostile client spent its budget.
    expect(await enroll(target, { ...viaProxy, from: "127.0.0.2" })).toBe(400);
    await spend(target, { ...viaProxy, from: "127.0.0.3" }, () => ({}));

    // The flood: one request each from more distinct addresses than the table keeps.
    const flood = Array.from({ length: TABLE_ENTRIES + 50 }, (_, n) => `127.1.${n >> 8}.${n & 255}`);
    const statuses: number[] = [];
    for (let start = 0; start < flood.length; start += 25) {
      const batch = flood.slice(start, start + 25);
      statuses.push(...(await Promise.all(batch.map((from) => enroll(target, { ...viaProxy, from })))));
    }
    // The table took newcomers until it was full (two places were the owner's and the spender's),
    // then refused the rest: it never grew past its bound, and it took no one's place.
    expect(statuses.filter((status) => status === 400)).toHaveLength(TABLE_ENTRIES - 2);
    expect(statuses.filter((status) => status === 429)).toHaveLength(52);
    // The spent budget is still spent: the flood bought the spender no fresh one.
    expect(await enroll(target, { ...viaProxy, from: "127.0.0.3" })).toBe(429);
    // The owner's budget, live in the table, is still there.
    expect(await enroll(target, { ...viaProxy, from: "127.0.0.2" })).toBe(400);
  }, 120_000);
});
