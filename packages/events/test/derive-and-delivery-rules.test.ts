import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Run, ThreadShell } from "@t3-connector/core/t3";
import { newSecret } from "@t3-connector/test-support/webhook-receiver";
import { Webhook } from "standardwebhooks";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { exhaustion } from "../src/backoff.js";
import {
  createSigner,
  DEFAULT_DELIVERY_POLICY,
  deriveTransitions,
  EMPTY_SEEN,
  eventId,
  retryDelayMs,
  runTransitions,
  type ThreadSeen,
  type WebhookEvent,
} from "../src/index.js";
import { Outbox } from "../src/outbox.js";

function row(fields: Partial<ThreadShell>): ThreadShell {
  return {
    id: "t1",
    projectId: "p1",
    title: "Thread",
    status: "idle",
    latestRunId: null,
    activeRunId: null,
    pendingRuntimeRequest: null,
    createdAt: "2026-01-01T00:00:00.000Z",
    updatedAt: "2026-01-01T00:00:00.000Z",
    ...fields,
  } as ThreadShell;
}

const running: ThreadSeen = { latestRunId: "r1", status: "running", requestId: null, openRuns: ["r1"] };

describe("transitions derived from shell rows", () => {
  it("a run that ends gives one event of its kind, and the same row seen again gives none", () => {
    const ended = row({ latestRunId: "r1", status: "failed" });
    const first = deriveTransitions(running, ended);
    expect(first.transitions.map((t) => [t.type, t.runId])).toEqual([["run.failed", "r1"]]);
    expect(first.next).toEqual({ latestRunId: "r1", status: "failed", requestId: null, openRuns: [] });
    expect(deriveTransitions(first.next, ended).transitions).toEqual([]);
  });

  it("cancelled and rolled back runs have no event", () => {
    expect(deriveTransitions(running, row({ latestRunId: "r1", status: "cancelled" })).transitions).toEqual(
      [],
    );
  });

  it("a pending request is news once per request id, whatever its run does", () => {
    const asking = row({
      latestRunId: "r1",
      status: "running",
      activeRunId: "r1",
      pendingRuntimeRequest: { id: "q1", kind: "user_input", createdAt: "2026-01-01T00:00:01.000Z" },
    });
    const first = deriveTransitions(running, asking);
    expect(first.transitions).toEqual([
      expect.objectContaining({
        type: "thread.needs_input",
        runId: "r1",
        transition: "thread.needs_input:q1",
        request: { id: "q1", kind: "user_input", createdAt: "2026-01-01T00:00:01.000Z" },
      }),
    ]);
    expect(deriveTransitions(first.next, asking).transitions).toEqual([]);
    const approval = row({
      latestRunId: "r1",
      status: "running",
      pendingRuntimeRequest: { id: "a1", kind: "file-change" },
    });
    // The question it replaced no longer waits: that is told too (ADR 0073).
    expect(deriveTransitions(first.next, approval).transitions.map((t) => t.type)).toEqual([
      "thread.needs_approval",
      "thread.request_resolved",
    ]);
  });

  it("tells when an announced request no longer waits: answered while the run goes on, or withdrawn with its run", () => {
    const asking = row({
      latestRunId: "r1",
      status: "running",
      activeRunId: "r1",
      pendingRuntimeRequest: { id: "a1", kind: "command", createdAt: "2026-01-01T00:00:01.000Z" },
    });
    const seen = deriveTransitions(running, asking).next;
    const answered = deriveTransitions(
      seen,
      row({ latestRunId: "r1", status: "running", activeRunId: "r1" }),
    );
    expect(answered.transitions).toEqual([
      expect.objectContaining({
        type: "thread.request_resolved",
        transition: "thread.request_resolved:a1",
        request: { id: "a1", kind: "command", createdAt: null },
        resolution: "answered",
      }),
    ]);
    expect(
      deriveTransitions(answered.next, row({ latestRunId: "r1", status: "running", activeRunId: "r1" }))
        .transitions,
    ).toEqual([]);
    const ended = deriveTransitions(seen, row({ latestRunId: "r1", status: "interrupted" }));
    expect(ended.transitions.map((t) => [t.type, "resolution" in t ? t.resolution : undefined])).toEqual([
      ["run.interrupted", undefined],
      ["thread.request_resolved", "withdrawn"],
    ]);
  });

  it("a newer run replacing one seen going asks for the run list, which names the end the shell skipped", () => {
    const replaced = deriveTransitions(
      running,
      row({ latestRunId: "r2", status: "running", activeRunId: "r2" }),
    );
    expect(replaced.next.runsCheck).toEqual({ after: "r1" });
    expect(replaced.next.openRuns).toEqual(["r2", "r1"]);
    const runs = [
      {
        id: "r1",
        threadId: "t1",
        ordinal: 1,
        status: "interrupted",
        completedAt: "2026-01-01T00:01:00.000Z",
      },
      { id: "r2", threadId: "t1", ordinal: 2, status: "running" },
    ] as Run[];
    const { transitions, stillOpen } = runTransitions({ after: "r1" }, ["r1"], runs);
    expect(transitions.map((t) => [t.type, t.runId, t.occurredAt])).toEqual([
      ["run.interrupted", "r1", "2026-01-01T00:01:00.000Z"],
    ]);
    expect(stillOpen).toEqual([]);
  });

  it("a thread first seen after the baseline reports every ended run of its list", () => {
    const derivation = deriveTransitions(undefined, row({ latestRunId: "r2", status: "completed" }));
    expect(derivation.next.runsCheck).toEqual({ after: null });
    // The baseline (first sight of an environment) is history: no check, no event.
    expect(
      deriveTransitions(EMPTY_SEEN, row({ latestRunId: "r2", status: "completed" })).next.runsCheck,
    ).toBeUndefined();
    const runs = [
      { id: "r1", threadId: "t1", ordinal: 1, status: "failed" },
      { id: "r2", threadId: "t1", ordinal: 2, status: "completed" },
    ] as Run[];
    expect(runTransitions({ after: null }, [], runs).transitions.map((t) => t.type)).toEqual([
      "run.failed",
      "run.completed",
    ]);
  });
});

describe("event ids", () => {
  it("are the same for the same transition and differ for any other", () => {
    const key = { environmentId: "e1", threadId: "t1", runId: "r1", transition: "run.completed" };
    expect(eventId(key)).toBe(eventId({ ...key }));
    expect(eventId(key)).toMatch(/^msg_[0-9a-f]{32}$/);
    const others = [
      { ...key, environmentId: "e2" },
      { ...key, threadId: "t2" },
      { ...key, runId: "r2" },
      { ...key, transition: "run.failed" },
    ].map(eventId);
    expect(new Set([eventId(key), ...others]).size).toBe(5);
  });
});

describe("retry schedule", () => {
  it("is full jitter under a doubling ceiling, capped", () => {
    const policy = { ...DEFAULT_DELIVERY_POLICY, baseDelayMs: 100, maxDelayMs: 1_000 };
    const top = () => 0.999_999;
    expect([1, 2, 3, 4, 5, 6].map((n) => retryDelayMs(n, policy, top))).toEqual([
      99, 199, 399, 799, 999, 999,
    ]);
    expect(retryDelayMs(3, policy, () => 0)).toBe(0);
    expect(retryDelayMs(3, policy, () => 0.5)).toBe(200);
  });

  it("stops at the attempt bound or the age bound", () => {
    const policy = { ...DEFAULT_DELIVERY_POLICY, maxAttempts: 3, maxAgeMs: 1_000 };
    expect(exhaustion(2, 10, policy)).toBeNull();
    expect(exhaustion(3, 10, policy)).toBe("max_attempts");
    expect(exhaustion(1, 1_000, policy)).toBe("max_age");
  });
});

describe("signatures", () => {
  it("are Standard Webhooks signatures a standardwebhooks receiver verifies", () => {
    const secret = newSecret();
    const body = JSON.stringify({ type: "run.completed" });
    const headers = createSigner(secret).headers("msg_1", new Date(), body);
    expect(headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(new Webhook(secret).verify(body, headers)).toEqual({ type: "run.completed" });
    expect(() => new Webhook(newSecret()).verify(body, headers)).toThrow();
  });

  it("refuse a secret that is not whsec_ base64 of at least 24 bytes", () => {
    expect(() => createSigner("hunter2")).toThrow(/whsec_/);
    expect(() => createSigner(`whsec_${Buffer.from("short").toString("base64")}`)).toThrow(/too short/);
  });
});

describe("outbox repair after a crash between two steps", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "t3-outbox-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const event = (id: string): WebhookEvent =>
    ({
      id,
      type: "run.completed",
      timestamp: "2026-01-01T00:00:00.000Z",
      data: {},
    }) as unknown as WebhookEvent;

  it("a delivered event left in pending is not sent again, and an enqueued id is never enqueued twice", async () => {
    const id = eventId({ environmentId: "e", threadId: "t", runId: "r", transition: "run.completed" });
    const outbox = await Outbox.open(dir);
    expect(await outbox.enqueue(event(id), "2026-01-01T00:00:00.000Z")).toBe(true);
    expect(await outbox.enqueue(event(id), "2026-01-01T00:00:00.000Z")).toBe(false);
    // Killed after the delivered record, before the pending file went.
    await writeFile(
      path.join(dir, "outbox", "delivered", `${id}.json`),
      JSON.stringify({
        id,
        type: "run.completed",
        createdAt: "x",
        deliveredAt: "2026-01-01T00:00:01.000Z",
        attempts: 1,
      }),
      { mode: 0o600 },
    );
    const reopened = await Outbox.open(dir);
    expect(reopened.pendingCount).toBe(0);
    expect(reopened.has(id)).toBe(true);
    expect(await readdir(path.join(dir, "outbox", "pending"))).toEqual([]);
    expect(await reopened.enqueue(event(id), "2026-01-01T00:00:02.000Z")).toBe(false);
  });
});
