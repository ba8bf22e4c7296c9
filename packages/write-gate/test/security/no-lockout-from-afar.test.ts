/**
 * No stranger locks the owner out from afar (ADR 0073): three addresses behind a trusted proxy
 * (named by `serve` beside this boot's relay capability) flood the Deny/End ticket table and the
 * inbox's ceremonies as far as their budgets let them; the owner's Deny, End and inbox decision
 * from a fourth address still go through, each with the passkey. A ticket is given only for a
 * request or lease that exists.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FORWARD_CAPABILITY_HEADER, FORWARDED_CLIENT_HEADER } from "@t3-connector/core/http-edge";
import { postJson } from "@t3-connector/test-support/gate-http";
import { type SimGate, startSimGate } from "@t3-connector/test-support/sim-gate";
import { SoftPasskey } from "@t3-connector/test-support/soft-passkey";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { generateCapability } from "../../src/relay/capability.js";

const ORIGIN = "https://t3.example";
const STRANGERS = ["203.0.113.1", "203.0.113.2", "203.0.113.3"];
const OWNER = "198.51.100.7";

let gate: SimGate;
let oauthDir: string;
let capability: string;
let phone: SoftPasskey;

function fromAfar(address: string, path: string, body: unknown) {
  return postJson(gate.port, path, body, {
    origin: ORIGIN,
    [FORWARD_CAPABILITY_HEADER]: capability,
    [FORWARDED_CLIENT_HEADER]: address,
  });
}

/** Options, then the stop with the phone's assertion, as the owner. */
async function ownerStops(ask: Record<string, string>) {
  const started = await fromAfar(OWNER, "/approve/api/options", ask);
  expect(started.status).toBe(200);
  const { ticketId, options } = started.body as { ticketId: string; options: never };
  return fromAfar(OWNER, "/approve/api/stop", { ticketId, response: phone.get(options) });
}

/** Each stranger asks until its own budget answers 429: every slot it could take is taken. */
async function flood(path: string, body: unknown): Promise<number> {
  let granted = 0;
  for (const address of STRANGERS) {
    for (;;) {
      const answer = await fromAfar(address, path, body);
      if (answer.status === 429) break;
      expect(answer.status).toBe(200);
      granted += 1;
    }
  }
  return granted;
}

beforeEach(async () => {
  oauthDir = await mkdtemp(join(tmpdir(), "t3c-no-lockout-"));
  await mkdir(oauthDir, { recursive: true });
  phone = new SoftPasskey(ORIGIN);
  await writeFile(
    join(oauthDir, "passkeys.json"),
    JSON.stringify({ version: 1, credentials: [phone.storedCredential()] }),
    { mode: 0o600 },
  );
  capability = generateCapability();
  gate = await startSimGate({
    environments: [{ alias: "alpha", projects: [{ id: "p-api", title: "API", workspaceRoot: "/work/api" }] }],
    serve: true,
    inbox: true,
    remoteApproval: { origin: ORIGIN, oauthStateDir: oauthDir, relayCapability: capability },
  });
});

afterEach(async () => {
  await gate.close();
  await rm(oauthDir, { recursive: true, force: true });
});

describe("three addresses flooding the ticket tables from afar", () => {
  it("spend only their own slots: the owner's Deny and End still go through", async () => {
    const toDeny = await gate.desk.request({ actions: ["thread.pin"] });
    const toApprove = await gate.desk.request({ actions: ["thread.pin"] });
    const started = await fromAfar(OWNER, "/approve/api/options", {
      requestId: toApprove.requestId,
      decision: "approve",
    });
    const approved = await fromAfar(OWNER, "/approve/api/approve", {
      requestId: toApprove.requestId,
      response: phone.get((started.body as { options: never }).options),
    });
    expect(approved.status).toBe(200);
    const leaseId = (approved.body as { leaseId: string }).leaseId;

    // More tickets than the old shared table held (64), from three addresses.
    const granted = await flood("/approve/api/options", { requestId: toDeny.requestId, decision: "deny" });
    expect(granted).toBeGreaterThan(64);

    expect((await ownerStops({ requestId: toDeny.requestId, decision: "deny" })).body).toEqual({
      denied: true,
    });
    expect((await ownerStops({ leaseId, decision: "end" })).body).toEqual({ ended: true });
  });

  it("gives no ticket for a request or lease that does not exist", async () => {
    const deny = await fromAfar(STRANGERS[0] as string, "/approve/api/options", {
      requestId: "no-such-request",
      decision: "deny",
    });
    expect(deny.body).toEqual({ error: "request_invalid" });
    const end = await fromAfar(STRANGERS[0] as string, "/approve/api/options", {
      leaseId: "no-such-lease",
      decision: "end",
    });
    expect(end.body).toEqual({ error: "lease_closed" });
  });

  it("leave the owner's inbox decision its ceremony", async () => {
    gate.sim.environment("alpha").model.addThread({
      id: "t-deploy",
      projectId: "p-api",
      title: "Deploy",
      state: "waiting_approval",
      at: Date.now() - 60_000,
    });
    const unlock = async (address: string) => {
      const asked = await fromAfar(address, "/inbox/api/unlock/options", {});
      const { ticketId, options } = asked.body as { ticketId: string; options: never };
      const opened = await fromAfar(address, "/inbox/api/unlock", { ticketId, response: phone.get(options) });
      return (opened.body as { viewToken: string }).viewToken;
    };
    // From afar the list shows only after the passkey.
    expect((await fromAfar(OWNER, "/inbox/api/items", {})).body).toEqual({ error: "unlock_required" });
    const viewToken = await unlock(OWNER);
    const listed = await fromAfar(OWNER, "/inbox/api/items", { viewToken });
    const item = (
      listed.body as { items: { environment: { environmentId: string }; request: { requestId: string } }[] }
    ).items[0];
    if (item === undefined) throw new Error("nothing listed");
    const decisions = [
      {
        environmentId: item.environment.environmentId,
        threadId: "t-deploy",
        requestId: item.request.requestId,
        decision: "accept",
        answers: null,
      },
    ];
    // A view token is its client's: a stranger presenting it is still asked to unlock.
    expect((await fromAfar(STRANGERS[0] as string, "/inbox/api/items", { viewToken })).body).toEqual({
      error: "unlock_required",
    });
    await flood("/inbox/api/unlock/options", {});

    const asked = await fromAfar(OWNER, "/inbox/api/options", { decisions, viewToken });
    expect(asked.status).toBe(200);
    const { ticketId, options } = asked.body as { ticketId: string; options: never };
    const decided = await fromAfar(OWNER, "/inbox/api/decide", {
      ticketId,
      decisions,
      response: phone.get(options),
    });
    expect((decided.body as { outcomes: { result: string }[] }).outcomes[0]?.result).toBe("sent");
  });
});
