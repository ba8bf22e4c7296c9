import { afterEach, describe, expect, it } from "vitest";
import { pageHeaders, startTestGate, type TestGate } from "./support/gate.js";

const ENROLLED = [
  {
    id: "cred-1",
    publicKey: "AA",
    counter: 4,
    transports: ["internal"],
    createdAt: "2026-12-02T12:00:00.000Z",
  },
];
const FAKE_ASSERTION = { id: "cred-1", type: "public-key", rawId: "cred-1", response: {} };

let gate: TestGate | undefined;
afterEach(async () => {
  await gate?.close();
  gate = undefined;
});

function post(path: string, body: unknown) {
  return gate?.app.request(path, {
    method: "POST",
    headers: pageHeaders(),
    body: JSON.stringify(body),
  }) as Promise<Response>;
}

describe("passkey routes once a passkey is enrolled", () => {
  it("refuses the enrollment code: another passkey needs an assertion with an existing one", async () => {
    gate = await startTestGate({}, ENROLLED);
    const response = await post("/api/enrollment/options", { code: "ABCD-EFGH-JKMN-PQRS" });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: "step_up_required" });
  });

  it("refuses to remove a passkey without a step-up ticket for that removal", async () => {
    gate = await startTestGate({}, ENROLLED);
    const forged = await post("/api/passkeys/remove", {
      credentialId: "cred-1",
      ticketId: "A".repeat(43),
      response: FAKE_ASSERTION,
    });
    expect(await forged.json()).toEqual({ error: "step_up_invalid" });
    // A real ticket issued to enroll is not a ticket to remove.
    const ticket = (await (await post("/api/passkeys/step-up", { purpose: "enroll" })).json()) as {
      ticketId: string;
    };
    const misused = await post("/api/passkeys/remove", {
      credentialId: "cred-1",
      ticketId: ticket.ticketId,
      response: FAKE_ASSERTION,
    });
    expect(await misused.json()).toEqual({ error: "step_up_invalid" });
    expect(gate.passkeys.list().map((passkey) => passkey.id)).toEqual(["cred-1"]);
  });

  it("refuses an approval for a request that does not exist", async () => {
    gate = await startTestGate({}, ENROLLED);
    const response = await post("/api/requests/approve", {
      requestId: "B".repeat(43),
      response: FAKE_ASSERTION,
    });
    expect(await response.json()).toEqual({ error: "request_invalid" });
    expect(gate.keeper.list()).toEqual([]);
  });
});
