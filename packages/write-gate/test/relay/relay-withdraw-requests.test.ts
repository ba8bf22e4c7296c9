/**
 * `withdraw_requests`: the holder of pending approval requests (an OAuth session of `serve --http`
 * that ended, ADR 0049) withdraws them over the relay. Only its own secret names them: another
 * holder's, a forged one or none withdraws nothing. A withdrawn request's link says the session
 * ended, and an approval racing the withdrawal grants nothing. Over real sockets: the relay and the
 * page API are real HTTP POSTs to a gate over the simulator.
 */
import { randomBytes } from "node:crypto";
import { type GateHarness, startGateHarness } from "@t3-connector/test-support/gate-harness";
import { postJson } from "@t3-connector/test-support/gate-http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GateApprovalDesk } from "../../src/approval/index.js";
import { GateLeaseKeeper, holderHashOf } from "../../src/lease/lease-keeper.js";
import type { AssertionVerifier } from "../../src/passkeys/remote-passkeys.js";
import { gateHumanSide } from "../../src/process/index.js";

let h: GateHarness;
/** The real gate's own desk, kept as its human side is built (the race test drives it directly). */
let gateDesk: unknown;

beforeAll(async () => {
  h = await startGateHarness({
    humanSide: async (parts) => {
      const side = await gateHumanSide(parts);
      gateDesk = side.approvals;
      return side;
    },
  });
});
afterAll(async () => {
  await h?.close();
});

type Body = Record<string, unknown>;
const secretOf = () => randomBytes(32).toString("base64url");

async function ask(secret: string, bridge: string): Promise<string> {
  const answer = await h.relay({ op: "request_approval", bridge, leaseSecret: secret });
  expect(answer.status).toBe(200);
  const requestId = (answer.body as Body).requestId;
  if (typeof requestId !== "string") throw new Error(`no request id in ${JSON.stringify(answer.body)}`);
  return requestId;
}

/** What the page's open link shows for a request: 200 with the request, or why it is dead. */
async function pageView(requestId: string): Promise<{ status: number; body: unknown }> {
  const origin = `http://localhost:${h.gate.port}`;
  return postJson(h.gate.port, "/api/requests/view", { requestId }, { origin });
}

function desk(): GateApprovalDesk {
  if (!(gateDesk instanceof GateApprovalDesk)) throw new Error("the gate's desk is not a GateApprovalDesk");
  return gateDesk;
}

describe("the relay's withdraw_requests op", () => {
  it("withdraws only the holder's own pending requests; their links say the session ended", async () => {
    const mine = secretOf();
    const theirs = secretOf();
    const myRequest = await ask(mine, "url-session-mine-0001");
    const theirRequest = await ask(theirs, "url-session-theirs-0002");

    // A hostile holder: another holder's secret shape drawn afresh, no secret, a near miss of the real one.
    const nearMiss = `${mine.startsWith("A") ? "B" : "A"}${mine.slice(1)}`;
    for (const leaseSecret of [secretOf(), undefined, nearMiss]) {
      const answer = await h.relay({ op: "withdraw_requests", ...(leaseSecret ? { leaseSecret } : {}) });
      expect(answer).toMatchObject({ status: 200, body: { withdrawn: 0 } });
    }
    expect((await pageView(myRequest)).status).toBe(200);

    expect(await h.relay({ op: "withdraw_requests", leaseSecret: mine })).toMatchObject({
      status: 200,
      body: { withdrawn: 1 },
    });
    expect(await pageView(myRequest)).toMatchObject({ status: 410, body: { error: "request_withdrawn" } });
    // The other holder's request is untouched, and withdrawing again finds nothing.
    expect((await pageView(theirRequest)).status).toBe(200);
    expect(await h.relay({ op: "withdraw_requests", leaseSecret: mine })).toMatchObject({
      body: { withdrawn: 0 },
    });
    // The withdrawn link offers no approval: its challenge is refused the same way.
    const origin = `http://localhost:${h.gate.port}`;
    expect(
      await postJson(h.gate.port, "/api/requests/options", { requestId: myRequest }, { origin }),
    ).toMatchObject({
      status: 410,
      body: { error: "request_withdrawn" },
    });
    expect(await h.relay({ op: "withdraw_requests", leaseSecret: theirs })).toMatchObject({
      body: { withdrawn: 1 },
    });
  });

  it("makes an approval whose passkey is being verified when the withdrawal lands grant nothing", async () => {
    const secret = secretOf();
    const requestId = await ask(secret, "url-session-racing-0003");
    // The assertion's verification is held open until the withdrawal is in: the race, made certain.
    let answerAssertion: (credentialId: string) => void = () => undefined;
    const verifier: AssertionVerifier = {
      hasAny: () => true,
      authenticationOptions: async () => ({ challenge: "c" }),
      verifyAuthentication: () =>
        new Promise<string>((resolve) => {
          answerAssertion = resolve;
        }),
    };
    await desk().challenge(requestId, undefined, verifier);
    const approving = desk().approve(requestId, {} as never);
    const withdrawn = await h.relay({ op: "withdraw_requests", leaseSecret: secret });
    expect(withdrawn).toMatchObject({ status: 200, body: { withdrawn: 1 } });
    answerAssertion("credential-of-the-person");
    await expect(approving).rejects.toMatchObject({ code: "request_withdrawn" });
    const keeper = h.gate.lease;
    if (!(keeper instanceof GateLeaseKeeper)) throw new Error("the gate's lease is not a GateLeaseKeeper");
    expect(keeper.list().filter((lease) => lease.holderHash === holderHashOf(secret))).toEqual([]);
    expect(await h.relay({ op: "lease", leaseSecret: secret })).toMatchObject({ body: { active: false } });
    expect(await pageView(requestId)).toMatchObject({ status: 410, body: { error: "request_withdrawn" } });
  });

  it("refuses a body that breaks the op's schema, and a caller without the capability", async () => {
    for (const body of [
      { op: "withdraw_requests", leaseSecret: "" },
      { op: "withdraw_requests", leaseSecret: secretOf(), requestId: "x" },
    ]) {
      expect(await h.relay(body)).toMatchObject({ status: 400, body: { error: "invalid_request" } });
    }
    expect(await h.relay({ op: "withdraw_requests", leaseSecret: secretOf() }, null)).toMatchObject({
      status: 401,
    });
  });
});
