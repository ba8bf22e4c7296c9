/**
 * The gate's edge (core's one body reader and Host/Origin check, ADR 0056) over a real socket, as
 * a hostile local process or a page would reach it: bodies past the cap with and without a length,
 * bytes that are not UTF-8, the IPv6 loopback literal, `Origin: null`, a browser at the relay.
 */

import { connect } from "node:net";
import { IDLE_KEEP_ALIVE_MS } from "@t3-connector/core/http-edge";
import { type GateHarness, startGateHarness } from "@t3-connector/test-support/gate-harness";
import { postJson, rawRequest } from "@t3-connector/test-support/gate-http";
import { announcedIdleMs, keepAliveResponseHead } from "@t3-connector/test-support/keep-alive-hint";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

let harness: GateHarness;
beforeEach(async () => {
  harness = await startGateHarness();
});
afterEach(async () => {
  await harness.close();
});

const port = () => harness.gate.port;
const page = () => ({ origin: `http://localhost:${port()}` });

/** Writes `text` on a raw socket and resolves with everything the gate sent until it closed. */
function rawExchange(text: string | Buffer, end = false): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port(), "127.0.0.1");
    let answer = "";
    socket.on("data", (chunk) => {
      answer += chunk.toString("utf8");
      // One answer is all a test needs; do not wait for a keep-alive to time out.
      if (/\r\n\r\n/.test(answer) && /}\s*$/.test(answer)) socket.destroy();
    });
    socket.on("error", reject);
    socket.on("close", () => resolve(answer));
    socket.write(text);
    if (end) socket.end();
  });
}

const head = (extra: string) =>
  `POST /api/revoke HTTP/1.1\r\nHost: localhost:${port()}\r\nOrigin: http://localhost:${port()}\r\n` +
  `Content-Type: application/json\r\n${extra}\r\n`;

describe("the gate's edge over a socket", () => {
  it("announces an idle keep-alive longer than the bridges and proxies that reuse its connections", async () => {
    // A bridge's relay sent on a connection the gate had just closed was lost as ECONNRESET.
    const head = await keepAliveResponseHead(port(), `localhost:${port()}`, "/");
    expect(announcedIdleMs(head)).toBe(IDLE_KEEP_ALIVE_MS);
  });

  it("answers a body declared past 64 KiB with 413 before a byte of it is sent, and revokes nothing", async () => {
    const lease = await harness.grantLease();
    const answer = await rawExchange(head(`Content-Length: ${10 * 1024 * 1024}\r\n`));
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).toContain('"error":"body_too_large"');
    expect(harness.gate.lease.list().map((open) => open.leaseId)).toEqual([lease]);
  });

  it("counts a chunked body with no length and refuses it past 64 KiB", async () => {
    const chunk = (text: string) => `${text.length.toString(16)}\r\n${text}\r\n`;
    const padding = "x".repeat(40_000);
    const answer = await rawExchange(
      `${head("Transfer-Encoding: chunked\r\n")}${chunk(`{"a":"${padding}`)}${chunk(`${padding}"}`)}0\r\n\r\n`,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
  });

  it("refuses bytes that are not UTF-8 with body_invalid", async () => {
    const body = Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]);
    const answer = await rawExchange(
      Buffer.concat([Buffer.from(head(`Content-Length: ${body.length}\r\n`)), body]),
    );
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer).toContain('"error":"body_invalid"');
  });

  it("refuses the IPv6 loopback literal and a rebound name: one name only", async () => {
    for (const host of [`[::1]:${port()}`, `rebound.example:${port()}`]) {
      const answer = await rawRequest({ port: port(), method: "GET", path: "/", headers: { host } });
      expect(answer.status).toBe(403);
      expect(answer.text).toBe(
        `The write gate answers only at http://localhost:${port()}/ - open that address.\n`,
      );
    }
  });

  it("refuses a state change from `Origin: null` and the relay from any browser", async () => {
    const lease = await harness.grantLease();
    const opaque = await postJson(port(), "/api/revoke", {}, { origin: "null" });
    expect(opaque).toMatchObject({ status: 403, body: { error: "origin_or_method_invalid" } });
    const fromPage = await postJson(port(), "/relay", { op: "status" }, page());
    expect(fromPage).toMatchObject({ status: 403, body: { error: "origin_or_method_invalid" } });
    expect(harness.gate.lease.list().map((open) => open.leaseId)).toEqual([lease]);
  });
});
