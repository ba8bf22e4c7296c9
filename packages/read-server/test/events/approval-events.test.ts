/**
 * Telling the person (ADR 0051): the events service finds the gate through the write config, as
 * `serve` does, and delivers `approval.requested` (the client's words, what approving grants, the
 * approval link on the public origin) and `approval.decided` to the webhook receiver, signed like
 * the thread events. A real gate, a real receiver, real sockets.
 */

import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { leaseItemId } from "@t3-connector/core/state";
import { type EventsService, startEventsService } from "@t3-connector/events";
import { postJson } from "@t3-connector/test-support/gate-http";
import { type RealGate, startRealGate } from "@t3-connector/test-support/real-gate";
import { type SimEvents, startSimEvents } from "@t3-connector/test-support/sim-events";
import { newSecret, WebhookReceiver } from "@t3-connector/test-support/webhook-receiver";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gateApprovalSource } from "../../src/events/gate-approvals.js";

const ORIGIN = "https://t3c.example.com";

let gate: RealGate;
let simEvents: SimEvents;
let receiver: WebhookReceiver;
let service: EventsService;
let stateDir: string;
const logged: string[] = [];

beforeAll(async () => {
  stateDir = await mkdtemp(path.join(os.tmpdir(), "t3c-approval-events-"));
  [gate, simEvents] = await Promise.all([
    startRealGate({ remoteApproval: { origin: ORIGIN, oauthStateDir: path.join(stateDir, "oauth") } }),
    startSimEvents(),
  ]);
  const secret = newSecret();
  receiver = new WebhookReceiver(secret);
  await receiver.start();
  const log = (line: string) => void logged.push(line);
  const io = {
    stdout: { write: () => true },
    stderr: { write: () => true },
    env: { T3_CONNECTOR_WRITE_CONFIG: gate.config.path },
  };
  const approvals = await gateApprovalSource(io, log);
  service = await startEventsService({
    config: simEvents.config,
    hookUrl: receiver.url,
    secret,
    stateDir: path.join(stateDir, "events"),
    log,
    policy: { baseDelayMs: 20, maxDelayMs: 50, graceMs: 0 },
    ...(approvals === undefined ? {} : { approvals }),
  });
}, 60_000);

afterAll(async () => {
  await service?.stop();
  await receiver?.stop();
  await simEvents?.close();
  await gate?.close();
  await rm(stateDir, { recursive: true, force: true });
});

type Approval = { type: string; data: Record<string, unknown> & { request: Record<string, unknown> } };

function approvalEvent(type: string, requestId: string): Approval | undefined {
  return [...receiver.accepted.values()]
    .map((event) => event as unknown as Approval)
    .find((event) => event.type === type && event.data.request.id === requestId);
}

describe("approval events in the signed webhook stream", () => {
  it("says where it found the gate", () => {
    expect(logged).toContain(
      `events: approval events from the gate on port ${gate.config.port} (write config ${gate.config.path})`,
    );
  });

  it("delivers approval.requested with the client's words, the grant and the approvalUrl, then approval.decided", async () => {
    const asked = await gate.relay({
      op: "request_approval",
      purpose: "pin the release thread while you are out",
      actions: ["thread.pin"],
      client: { name: "ChatGPT", signedInAt: "2026-12-06T17:02:00.000Z" },
    });
    expect(asked.status).toBe(200);
    const requestId = (asked.body as { requestId: string }).requestId;
    await receiver.until(() => approvalEvent("approval.requested", requestId) !== undefined);
    const requested = approvalEvent("approval.requested", requestId) as Approval;
    expect(requested.data).toMatchObject({
      request: {
        id: requestId,
        approvalUrl: `${ORIGIN}/approve?request=${requestId}`,
        // Its item in the person's inbox, on the same public origin (ADR 0073).
        inboxUrl: `${ORIGIN}/inbox#${leaseItemId(requestId)}`,
      },
      client: { name: "ChatGPT", signedInAt: "2026-12-06T17:02:00.000Z" },
      purpose: "pin the release thread while you are out",
    });
    const grants = requested.data.grants as Array<{ actions: string[]; projects: string[] }>;
    expect(grants.length).toBeGreaterThan(0);
    for (const grant of grants) expect(grant.actions).toEqual(["thread.pin"]);
    // Nothing secret travels: no holder secret, no challenge.
    expect(JSON.stringify(requested)).not.toContain("leaseSecret");

    // The person denies on the localhost page (no passkey needed there to deny).
    const denied = await postJson(
      gate.gate.port,
      "/api/requests/deny",
      { requestId },
      {
        Origin: `http://localhost:${gate.gate.port}`,
      },
    );
    expect(denied.status).toBe(200);
    await receiver.until(() => approvalEvent("approval.decided", requestId) !== undefined);
    expect(approvalEvent("approval.decided", requestId)?.data).toMatchObject({
      decision: "denied",
      request: { id: requestId, approvalUrl: `${ORIGIN}/approve?request=${requestId}` },
    });
    // Each once, whatever the retries: one id per request and kind.
    const ids = receiver.posts.filter((post) => post.verified && post.status === 204).map((post) => post.id);
    expect(new Set(ids).size).toBe(ids.length);
  }, 30_000);

  it("started after a request was decided, sends its decision and no approval.requested for it; an open request still comes", async () => {
    const ask = async (purpose: string) => {
      const asked = await gate.relay({ op: "request_approval", purpose, actions: ["thread.pin"] });
      expect(asked.status).toBe(200);
      return (asked.body as { requestId: string }).requestId;
    };
    const decided = await ask("decided before the late service started");
    const denied = await postJson(
      gate.gate.port,
      "/api/requests/deny",
      { requestId: decided },
      { Origin: `http://localhost:${gate.gate.port}` },
    );
    expect(denied.status).toBe(200);
    const open = await ask("still open when the late service started");

    const lateDir = await mkdtemp(path.join(os.tmpdir(), "t3c-approval-late-"));
    const secret = newSecret();
    const late = new WebhookReceiver(secret);
    await late.start();
    const io = {
      stdout: { write: () => true },
      stderr: { write: () => true },
      env: { T3_CONNECTOR_WRITE_CONFIG: gate.config.path },
    };
    const approvals = await gateApprovalSource(io, () => undefined);
    const lateService = await startEventsService({
      config: simEvents.config,
      hookUrl: late.url,
      secret,
      stateDir: lateDir,
      log: () => undefined,
      policy: { baseDelayMs: 20, maxDelayMs: 50, graceMs: 0 },
      ...(approvals === undefined ? {} : { approvals }),
    });
    try {
      const seen = (type: string, requestId: string) =>
        [...late.accepted.values()]
          .map((event) => event as unknown as Approval)
          .filter((event) => event.type === type && event.data.request.id === requestId);
      // The open request's push is the later entry of the feed: once it arrived, the whole feed was read.
      await late.until(() => seen("approval.requested", open).length > 0);
      await late.until(() => seen("approval.decided", decided).length > 0);
      expect(seen("approval.requested", decided)).toEqual([]);
      expect(seen("approval.decided", decided)[0]?.data).toMatchObject({ decision: "denied" });
    } finally {
      await lateService.stop();
      await late.stop();
      await rm(lateDir, { recursive: true, force: true });
    }
  }, 30_000);
});
