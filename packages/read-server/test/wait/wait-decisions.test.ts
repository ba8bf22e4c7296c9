import type { ThreadShell, ThreadStreamItem } from "@t3-connector/core/t3";
import { describe, expect, it } from "vitest";
import { decideFromShell, decideFromStream, followedFromShell } from "../../src/wait/followed-run.js";
import { ObservedThread } from "../../src/wait/observed-thread.js";
import { buildWaitResult } from "../../src/wait/wait-result.js";

const AT = "2026-12-02T13:00:00.000Z";

function shellRow(fields: Partial<ThreadShell>): ThreadShell {
  return {
    id: "thread-1",
    projectId: "project-1",
    title: "A thread",
    status: "idle",
    createdAt: AT,
    updatedAt: AT,
    pendingBackgroundTasks: [],
    ...fields,
  } as ThreadShell;
}

function snapshot(projection: Record<string, unknown>): ThreadStreamItem {
  return {
    kind: "snapshot",
    snapshotSequence: 10,
    projection: { thread: { id: "thread-1", projectId: "project-1", title: "A thread" }, ...projection },
  } as unknown as ThreadStreamItem;
}

function event(sequence: number, type: string, payload: Record<string, unknown>): ThreadStreamItem {
  return { kind: "event", sequence, event: { type, payload } } as unknown as ThreadStreamItem;
}

function resultOf(
  thread: ThreadShell,
  observed: ObservedThread | undefined,
  followed: { runId: string | null; status: string | null },
  reason: "terminal" | "timeout",
) {
  return buildWaitResult({
    environment: { alias: "alpha", environmentId: "env-alpha" },
    thread,
    followed,
    observed,
    reason,
    observedAt: AT,
    elapsedMs: 3,
    timeoutMs: 1_000,
    maxCharacters: undefined,
  });
}

describe("the run a wait follows", () => {
  it("is the active run, not the newest one, when a newer run was cancelled while it works", () => {
    const thread = shellRow({
      status: "cancelled",
      latestRunId: "run-2",
      activeRunId: "run-1",
      activityRunStatus: "running",
    });
    const followed = followedFromShell(thread, undefined);
    expect(followed).toEqual({ runId: "run-1", status: "running" });
    expect(decideFromShell(thread, followed, false)).toBeUndefined();
    const result = resultOf(thread, undefined, { runId: "run-1", status: "running" }, "timeout");
    expect(result).toMatchObject({
      runId: "run-1",
      statusRun: "running",
      state: "running",
      timedOut: true,
      terminal: false,
    });
  });

  it("is named by the snapshot when the shell reports activity without naming the run", () => {
    const thread = shellRow({ status: "completed", latestRunId: "run-1", activityRunStatus: "waiting" });
    const followed = followedFromShell(thread, undefined);
    expect(followed.runId).toBeUndefined();
    const observed = new ObservedThread();
    observed.apply(
      snapshot({
        runs: [
          { id: "run-1", ordinal: 1, status: "completed" },
          { id: "run-2", ordinal: 2, status: "waiting" },
        ],
      }),
    );
    expect(decideFromStream(observed, "thread-1", followed, undefined)).toEqual({
      followed: { runId: "run-2", status: "waiting" },
      reason: undefined,
    });
    observed.apply(event(11, "run.updated", { id: "run-2", ordinal: 2, status: "completed" }));
    const decision = decideFromStream(observed, "thread-1", followed, undefined);
    expect(decision).toEqual({ followed: { runId: "run-2", status: "completed" }, reason: "terminal" });
    expect(resultOf(thread, observed, decision.followed, "terminal")).toMatchObject({
      runId: "run-2",
      state: "completed",
      terminal: true,
      timedOut: false,
    });
  });

  it("answers no_run at once only for a thread that never ran and no named run", () => {
    const idle = shellRow({});
    expect(decideFromShell(idle, followedFromShell(idle, undefined), true)).toBe("no_run");
    expect(decideFromShell(idle, followedFromShell(idle, "run-9"), false)).toBeUndefined();
  });
});

describe("the state after a wait", () => {
  it("comes from the projection's pending requests once the stream was read, not from the older shell", () => {
    const thread = shellRow({
      status: "running",
      latestRunId: "run-1",
      activeRunId: "run-1",
      pendingRuntimeRequest: { id: "req-old", kind: "command", createdAt: AT },
    });
    const observed = new ObservedThread();
    observed.apply(
      snapshot({
        runs: [{ id: "run-1", ordinal: 1, status: "running" }],
        runtimeRequests: [{ id: "req-old", kind: "command", status: "resolved", createdAt: AT }],
      }),
    );
    observed.apply(
      event(12, "runtime-request.updated", {
        id: "req-new",
        kind: "user_input",
        status: "pending",
        createdAt: AT,
      }),
    );
    const decision = decideFromStream(observed, "thread-1", followedFromShell(thread, undefined), undefined);
    expect(decision.reason).toBe("needs_intervention");
    expect(resultOf(thread, observed, decision.followed, "terminal").pendingRequest).toEqual({
      runtimeRequestId: "req-new",
      kind: "user_input",
      reason: "question waiting for an answer",
      since: AT,
    });
  });

  it("refuses a named run the snapshot does not hold, and reports a deletion", () => {
    const observed = new ObservedThread();
    observed.apply(snapshot({ runs: [{ id: "run-1", ordinal: 1, status: "running" }] }));
    expect(() => decideFromStream(observed, "thread-1", { runId: "run-x", status: null }, "run-x")).toThrow(
      /run run-x is not a run of thread thread-1/,
    );
    observed.apply(event(13, "thread.deleted", { id: "thread-1", deletedAt: AT }));
    expect(
      decideFromStream(observed, "thread-1", { runId: "run-1", status: "running" }, undefined).reason,
    ).toBe("thread_deleted");
  });
});
