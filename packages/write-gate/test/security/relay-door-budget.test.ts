/**
 * The relay's door and the app's relay route spend one budget: a hostile local process holding
 * the capability gets the relay's limit once, whichever of the two serves its calls, and a call
 * either refuses before the body costs nothing.
 */
import { postJson } from "@t3-connector/test-support/gate-http";
import { RELAY_HEADER } from "@t3-connector/write-engine/relay-contract";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { relayDoor } from "../../src/app/index.js";
import type { VerifiedRelay } from "../../src/relay/index.js";
import { AddressBudget, jsonAnswerHeaders } from "../../src/security/index.js";
import { ManualClock, startTestGate, TEST_PORT, type TestGate } from "./support/gate.js";
import { type ListeningGateServer, listenGateServer } from "./support/gate-server.js";

const GOOD = "c".repeat(43);
const relay: VerifiedRelay = {
  accepts: (presented) => presented === GOOD,
  answer: async (body) => ({ status: 200, body: { echoed: body } }),
};

let gate: TestGate;
let server: ListeningGateServer;
const clock = new ManualClock();

beforeEach(async () => {
  const budget = new AddressBudget({ clock, limit: 3 });
  gate = await startTestGate({
    relayBudget: budget,
    relay: async (c, readBody) =>
      relay.accepts(c.req.header(RELAY_HEADER))
        ? c.json((await relay.answer(await readBody())).body)
        : c.json({ error: "channel_unverified" }, 401),
  });
  const log = (line: string) => gate.logs.push(line);
  const door = relayDoor({ port: TEST_PORT, relay, budget, headers: await jsonAnswerHeaders(), log });
  server = await listenGateServer(gate.app, door);
});

afterEach(async () => {
  await server.close();
  await gate.close();
});

/** A relay call with `Host: localhost:<TEST_PORT>`: by the door at `/relay`, by the route with a query. */
const call = (via: "door" | "route", capability = GOOD) =>
  postJson(
    server.port,
    via === "door" ? "/relay" : "/relay?via=route",
    { op: "environments" },
    {
      host: `localhost:${TEST_PORT}`,
      [RELAY_HEADER]: capability,
    },
  );

describe("the relay's one budget", () => {
  it("is spent by the door and the route together, and refused by both past its limit", async () => {
    for (let index = 0; index < 5; index += 1) expect((await call("door", "f".repeat(43))).status).toBe(401);
    expect((await call("door")).status).toBe(200);
    expect((await call("route")).body).toEqual({ echoed: { op: "environments" } });
    expect((await call("door")).body).toEqual({ echoed: { op: "environments" } });
    const byDoor = await call("door");
    const byRoute = await call("route");
    expect([byDoor.status, byRoute.status]).toEqual([429, 429]);
    expect(byDoor.body).toEqual({ error: "rate_limited" });
    expect(byDoor.text).toBe(byRoute.text);
    clock.advance(60_000);
    expect((await call("door")).status).toBe(200);
  });
});
