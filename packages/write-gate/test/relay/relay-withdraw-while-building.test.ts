/**
 * A session that ends while the gate is still building its request (ADR 0067): the withdrawal
 * lands while the request's inventory runs, and the request is refused when it would be kept, so
 * nothing outlives the session that asked. The gate's own inventory is held open at its seam
 * (`createGateApp`'s `inventory`) until the withdrawal is in: the race, made certain, with no
 * sleep. Over real sockets: the relay and the page API are real HTTP POSTs to a gate over the
 * simulator.
 */
import { randomBytes } from "node:crypto";
import { type GateHarness, startGateHarness } from "@t3-connector/test-support/gate-harness";
import { type HttpAnswer, postJson } from "@t3-connector/test-support/gate-http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Inventory } from "../../src/approval/index.js";
import { gateHumanSide } from "../../src/process/index.js";

let h: GateHarness;
/** Set by a test: the next inventory waits for it before it reads the simulator. */
let holdNext: { reached: () => void; released: Promise<void> } | undefined;

/** The real inventory, with a seam that holds one run open while the test acts. */
function holdableInventory(real: Inventory): Inventory {
  return async (wanted, signal) => {
    const hold = holdNext;
    holdNext = undefined;
    if (hold !== undefined) {
      hold.reached();
      await hold.released;
    }
    return real(wanted, signal);
  };
}

beforeAll(async () => {
  h = await startGateHarness({
    // The gate's own human side, with the inventory held at will.
    humanSide: (parts) => gateHumanSide(parts, { inventory: holdableInventory }),
  });
});
afterAll(async () => {
  await h?.close();
});

type Body = Record<string, unknown>;
const secretOf = () => randomBytes(32).toString("base64url");

/** Arms the hold; resolves `reached` when the next inventory starts, runs on once `release` is called. */
function armHold(): { reached: Promise<void>; release: () => void } {
  let reached: () => void = () => undefined;
  let release: () => void = () => undefined;
  const reachedPromise = new Promise<void>((resolve) => {
    reached = resolve;
  });
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  holdNext = { reached, released };
  return { reached: reachedPromise, release };
}

async function pendingRequests(): Promise<Body[]> {
  const origin = `http://localhost:${h.gate.port}`;
  const state = await postJson(h.gate.port, "/api/state", {}, { origin });
  return (state.body as { pendingRequests: Body[] }).pendingRequests;
}

describe("a withdrawal while the request is being built", () => {
  it("refuses the request when it would be kept: nothing is pending, nothing can be approved", async () => {
    const secret = secretOf();
    const hold = armHold();
    const asking: Promise<HttpAnswer> = h.relay({
      op: "request_approval",
      bridge: "url-session-ending-0001",
      leaseSecret: secret,
      purpose: "asked just before the session ended",
    });
    await hold.reached;
    // The session ends now, its request still inside the inventory.
    expect(await h.relay({ op: "withdraw_requests", leaseSecret: secret })).toMatchObject({
      status: 200,
      body: { withdrawn: 0 },
    });
    hold.release();
    const answer = await asking;
    expect(answer).toMatchObject({ status: 403, body: { error: "request_withdrawn" } });
    expect((answer.body as Body).requestId).toBeUndefined();
    expect(await pendingRequests()).toEqual([]);
    // The ended session's secret asks for nothing more: a later request is refused before any inventory.
    const later = await h.relay({
      op: "request_approval",
      bridge: "url-session-ending-0001",
      leaseSecret: secret,
    });
    expect(later).toMatchObject({ status: 403, body: { error: "request_withdrawn" } });
    expect(await pendingRequests()).toEqual([]);
  });

  it("leaves another holder's request built meanwhile alone (the control)", async () => {
    const ending = secretOf();
    const other = secretOf();
    const hold = armHold();
    const asking = h.relay({ op: "request_approval", bridge: "url-session-other-0002", leaseSecret: other });
    await hold.reached;
    // Another session's end lands while this holder's request is built: it withdraws nothing of it.
    expect(await h.relay({ op: "withdraw_requests", leaseSecret: ending })).toMatchObject({
      body: { withdrawn: 0 },
    });
    hold.release();
    const answer = await asking;
    expect(answer.status).toBe(200);
    const requestId = (answer.body as Body).requestId;
    expect((await pendingRequests()).map((row) => row.requestId)).toContain(requestId);
    expect(await h.relay({ op: "withdraw_requests", leaseSecret: other })).toMatchObject({
      body: { withdrawn: 1 },
    });
  });
});
