import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { type JournalFs, nodeJournalFs } from "@t3-connector/core/durable";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AnyWebhookEvent, ApprovalWebhookEvent, WebhookEvent } from "../src/event-types.js";
import { graceRoleOf } from "../src/grace.js";
import { Outbox, readOutboxStatus } from "../src/outbox.js";

const GRACE_MS = 10_000;
const T0 = Date.parse("2026-12-07T10:00:00.000Z");
const at = (ms: number) => new Date(T0 + ms).toISOString();

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "t3c-grace-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function threadEvent(
  id: string,
  type: WebhookEvent["type"],
  requestId: string,
  threadId = "thread-1",
): WebhookEvent {
  return {
    id,
    type,
    timestamp: at(0),
    data: {
      environment: { alias: "desk", id: "env-1" },
      project: { id: "p", title: "P" },
      thread: { id: threadId, title: "T" },
      run: { id: "run-1", status: "running" },
      state: "needs_intervention",
      occurredAt: null,
      detectedAt: at(0),
      request: { id: requestId, kind: "command", createdAt: null },
    },
  };
}

function approvalEvent(
  id: string,
  type: ApprovalWebhookEvent["type"],
  requestId: string,
): ApprovalWebhookEvent {
  return {
    id,
    type,
    timestamp: at(0),
    data: {
      request: {
        id: requestId,
        approvalUrl: "https://t3c.example.com/approve?request=x",
        inboxUrl: "https://t3c.example.com/inbox#lease-x",
        expiresAt: null,
        scopeFingerprint: null,
        runtimeCeiling: null,
      },
      client: null,
      purpose: null,
      grants: [],
      occurredAt: null,
      detectedAt: at(0),
    },
  };
}

const ids = (outbox: Outbox) => outbox.pending().map((event) => event.id);
const msg = (n: number) => `msg_${n.toString(16).padStart(32, "0")}`;

describe("the grace period of what waits on the person", () => {
  it("names the same item for a waiting event and the event that ends it, and nothing for a run's end", () => {
    const waits = graceRoleOf(threadEvent(msg(1), "thread.needs_approval", "req-1"));
    const ends = graceRoleOf(threadEvent(msg(2), "thread.request_resolved", "req-1"));
    expect(waits).toEqual({ item: "request:env-1:thread-1:req-1", role: "waits" });
    expect(ends).toEqual({ item: waits?.item, role: "ends" });
    expect(graceRoleOf(approvalEvent(msg(3), "approval.requested", "r"))).toEqual({
      item: "lease:r",
      role: "waits",
    });
    expect(graceRoleOf(approvalEvent(msg(4), "approval.decided", "r"))).toEqual({
      item: "lease:r",
      role: "ends",
    });
    const completed: AnyWebhookEvent = { ...threadEvent(msg(5), "run.completed", "req-1") };
    expect(graceRoleOf(completed)).toBeUndefined();
  });

  it("holds a waiting event until the period ends, and sends a run's end at once", async () => {
    const outbox = await Outbox.open(dir, undefined, { graceMs: GRACE_MS });
    await outbox.enqueue(threadEvent(msg(1), "thread.needs_input", "req-1"), at(0));
    await outbox.enqueue(threadEvent(msg(2), "run.completed", "req-9"), at(0));
    const byId = new Map(outbox.pending().map((event) => [event.id, event]));
    expect(byId.get(msg(1))?.nextAttemptAt).toBe(at(GRACE_MS));
    expect(byId.get(msg(2))?.nextAttemptAt).toBe(at(0));
  });

  it("drops both events when the item ends within the period: neither id is taken again, across a restart", async () => {
    const outbox = await Outbox.open(dir, undefined, { graceMs: GRACE_MS });
    await outbox.enqueue(threadEvent(msg(1), "thread.needs_approval", "req-1"), at(0));
    await outbox.enqueue(threadEvent(msg(3), "thread.needs_approval", "req-other", "thread-2"), at(0));
    expect(await outbox.enqueue(threadEvent(msg(2), "thread.request_resolved", "req-1"), at(4_000))).toBe(
      true,
    );
    expect(ids(outbox)).toEqual([msg(3)]);
    expect(outbox.has(msg(1)) && outbox.has(msg(2))).toBe(true);
    expect(await outbox.enqueue(threadEvent(msg(1), "thread.needs_approval", "req-1"), at(5_000))).toBe(
      false,
    );

    const status = await readOutboxStatus(dir);
    expect(status).toMatchObject({ pending: 1, delivered: 0, endedWithinGrace: 2, lastSuccessAt: null });
    const reopened = await Outbox.open(dir, undefined, { graceMs: GRACE_MS });
    expect(ids(reopened)).toEqual([msg(3)]);
    expect(reopened.has(msg(1)) && reopened.has(msg(2))).toBe(true);
    expect(reopened.lastSuccessAt).toBeNull();
  });

  it("sends both when the item ends once the period is over, or after an attempt was made", async () => {
    const outbox = await Outbox.open(dir, undefined, { graceMs: GRACE_MS });
    await outbox.enqueue(threadEvent(msg(1), "thread.needs_approval", "req-1"), at(0));
    await outbox.enqueue(threadEvent(msg(2), "thread.request_resolved", "req-1"), at(GRACE_MS));
    expect(ids(outbox).sort()).toEqual([msg(1), msg(2)]);

    await outbox.enqueue(approvalEvent(msg(3), "approval.requested", "lease-1"), at(0));
    await outbox.markFailed(msg(3), "HTTP 500", at(100), at(200));
    await outbox.enqueue(approvalEvent(msg(4), "approval.decided", "lease-1"), at(300));
    expect(ids(outbox)).toEqual(expect.arrayContaining([msg(3), msg(4)]));
  });

  it("drops a lease request decided within the period, and holds nothing when the period is 0", async () => {
    const outbox = await Outbox.open(dir, undefined, { graceMs: GRACE_MS });
    await outbox.enqueue(approvalEvent(msg(1), "approval.requested", "lease-1"), at(0));
    await outbox.enqueue(approvalEvent(msg(2), "approval.decided", "lease-1"), at(2_000));
    expect(ids(outbox)).toEqual([]);

    const off = await Outbox.open(await mkdtemp(path.join(dir, "off-")), undefined, { graceMs: 0 });
    await off.enqueue(approvalEvent(msg(3), "approval.requested", "lease-2"), at(0));
    await off.enqueue(approvalEvent(msg(4), "approval.decided", "lease-2"), at(1));
    expect(off.pending().map((event) => [event.id, event.nextAttemptAt])).toEqual([
      [msg(3), at(0)],
      [msg(4), at(1)],
    ]);
  });

  it("puts everything back when the never-sent records cannot be written, so both are derived again", async () => {
    let failDelivered = false;
    const fs: JournalFs = {
      ...nodeJournalFs,
      rename: async (from, to) => {
        if (failDelivered && String(to).includes(`${path.sep}delivered${path.sep}`)) {
          throw Object.assign(new Error("disk full"), { code: "ENOSPC" });
        }
        return nodeJournalFs.rename(from, to);
      },
    };
    const outbox = await Outbox.open(dir, fs, { graceMs: GRACE_MS });
    await outbox.enqueue(threadEvent(msg(1), "thread.needs_approval", "req-1"), at(0));
    failDelivered = true;
    await expect(
      outbox.enqueue(threadEvent(msg(2), "thread.request_resolved", "req-1"), at(1_000)),
    ).rejects.toMatchObject({ code: "journal_unavailable" });
    expect(ids(outbox)).toEqual([msg(1)]);
    expect(outbox.has(msg(2))).toBe(false);

    failDelivered = false;
    expect(await outbox.enqueue(threadEvent(msg(2), "thread.request_resolved", "req-1"), at(2_000))).toBe(
      true,
    );
    expect(ids(outbox)).toEqual([]);
    expect((await readOutboxStatus(dir)).endedWithinGrace).toBe(2);
  });
});
