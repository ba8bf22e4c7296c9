/**
 * The relay call's own deadline and the caller's cancel, against a gate that takes requests and
 * never answers: each ends as its own typed failure, and the next call on the same client is
 * unaffected by the deadlines of the calls before it.
 */
import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isConnectorError } from "@t3-connector/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRelayClient } from "../../src/relay-client.js";

let stateDir: string;
let port: number;
let answerNow = false;
const held: ServerResponse[] = [];
const server = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    if (!answerNow) return void held.push(res);
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ environments: [] }));
  });
});

beforeAll(async () => {
  stateDir = await mkdtemp(join(tmpdir(), "t3c-relay-deadline-"));
  await writeFile(join(stateDir, "relay-capability"), randomBytes(32).toString("base64url"), { mode: 0o600 });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  for (const res of held) res.destroy();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await rm(stateDir, { recursive: true, force: true });
});

async function failureOf(pending: Promise<unknown>) {
  const error = await pending.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!isConnectorError(error)) throw new Error(`expected a ConnectorError, got ${String(error)}`);
  return error;
}

describe("a relay call", () => {
  it("that the gate never answers ends at its deadline as gate_unavailable (timeout)", async () => {
    const relay = createRelayClient({ port, stateDir, timeoutMs: 50 });
    const error = await failureOf(relay.call({ op: "environments" }));
    expect(error.code).toBe("gate_unavailable");
    expect(error.details?.reason).toBe("timeout");
  });

  it("that the caller cancels ends as cancelled, and the next call is answered", async () => {
    const relay = createRelayClient({ port, stateDir, timeoutMs: 60_000 });
    const caller = new AbortController();
    const before = held.length;
    const pending = relay.call({ op: "environments" }, caller.signal);
    // Cancelled once the gate holds the request: the abort meets a request in flight.
    while (held.length === before) await new Promise((resolve) => setImmediate(resolve));
    caller.abort();
    expect((await failureOf(pending)).code).toBe("cancelled");
    answerNow = true;
    await expect(relay.call({ op: "environments" })).resolves.toEqual({ environments: [] });
  });
});
