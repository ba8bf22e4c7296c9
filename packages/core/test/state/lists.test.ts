import { describe, expect, it } from "vitest";
import { isConnectorError } from "../../src/errors.js";
import {
  attentionThreads,
  type ControlPlaneCandidate,
  controlPlaneLists,
  countByState,
  type EnvironmentRef,
  filterThreadList,
  isListableThread,
  type ShellThreadInput,
  threadSummary,
} from "../../src/state/index.js";
import { activeRow, finishedRow, ms, shellRow, T } from "./rows.js";

const LOCAL: EnvironmentRef = { alias: "local", environmentId: "env-a", name: "laptop" };
const REMOTE: EnvironmentRef = { alias: "remote", environmentId: "env-b", name: null };
const BEFORE_WAKE = ms(T.afterSnooze);
const AFTER_WAKE = ms("2026-12-02T00:00:00.000Z");

function candidate(
  id: string,
  row: ShellThreadInput,
  now = BEFORE_WAKE,
  environment = LOCAL,
): ControlPlaneCandidate {
  const thread = { ...row, id };
  return { environment, thread, summary: threadSummary(thread, { now }) };
}

const listed = (candidates: ControlPlaneCandidate[]) =>
  candidates.map((entry) => ({ ...entry.summary, environment: entry.environment }));

const snoozedFinished = (status: string) =>
  finishedRow(status, {
    latestRunCompletedAt: T.beforeSnooze,
    updatedAt: T.snoozedAt,
    snoozedAt: T.snoozedAt,
    snoozedUntil: T.snoozedUntil,
  });

describe("isListableThread", () => {
  it("hides deleted and archived rows from listings", () => {
    expect(isListableThread(shellRow())).toBe(true);
    expect(isListableThread(shellRow({ archivedAt: T.later }))).toBe(false);
    expect(isListableThread(shellRow({ deletedAt: T.later }))).toBe(false);
  });
});

describe("filterThreadList (t3_threads filters)", () => {
  const threads = listed([
    candidate("running", activeRow("running")),
    candidate("idle-1", shellRow()),
    candidate("idle-2", shellRow()),
    candidate("woke", snoozedFinished("completed"), AFTER_WAKE),
    candidate("done", finishedRow("completed")),
  ]);

  it("hides threads without a run unless asked, and counts them", () => {
    const result = filterThreadList(threads, {});
    expect(result.threads.map((t) => t.threadId)).toEqual(["running", "woke", "done"]);
    expect(result.hiddenNoRun).toBe(2);
    expect(filterThreadList(threads, { includeNoRun: true })).toMatchObject({ hiddenNoRun: 0 });
    expect(filterThreadList(threads, { includeNoRun: true }).threads).toHaveLength(5);
  });

  it("an explicit state shows exactly that state, no_run included", () => {
    expect(filterThreadList(threads, { state: "no_run" }).threads.map((t) => t.threadId)).toEqual([
      "idle-1",
      "idle-2",
    ]);
    expect(filterThreadList(threads, { state: "completed" }).threads.map((t) => t.threadId)).toEqual([
      "woke",
      "done",
    ]);
  });

  it("filters on woke after the state filter", () => {
    expect(filterThreadList(threads, { woke: true }).threads.map((t) => t.threadId)).toEqual(["woke"]);
    expect(
      filterThreadList(threads, { state: "completed", woke: false }).threads.map((t) => t.threadId),
    ).toEqual(["done"]);
  });

  it("refuses a woke filter it cannot decide instead of returning a list that looks complete", () => {
    const withUndecided = [
      ...threads,
      ...listed([candidate("old-server", finishedRow("completed", { snoozedUntil: undefined }))]),
    ];
    try {
      filterThreadList(withUndecided, { woke: true });
      expect.unreachable("the filter should have been refused");
    } catch (error) {
      expect(isConnectorError(error, "invalid_input")).toBe(true);
      expect((error as { details?: unknown }).details).toEqual({ undecidedThreadIds: ["old-server"] });
    }
    // An undecidable thread that the state filter already excludes does not block the query.
    expect(
      filterThreadList(withUndecided, { state: "running", woke: false }).threads.map((t) => t.threadId),
    ).toEqual(["running"]);
  });
});

describe("attentionThreads (t3_atencao)", () => {
  it("lists interventions and unsettled failures, newest first", () => {
    const threads = listed([
      candidate(
        "question",
        activeRow("running", {
          pendingRuntimeRequest: { id: "r", kind: "user_input", createdAt: T.later },
          updatedAt: T.snoozedAt,
        }),
      ),
      candidate("failed", finishedRow("failed", { updatedAt: T.later })),
      candidate("failed-settled", finishedRow("failed", { settledAt: T.later, settledOverride: "settled" })),
      candidate("cancelled", finishedRow("cancelled")),
      candidate("running", activeRow("running")),
      candidate(
        "plan-settled",
        finishedRow("completed", {
          hasActionableProposedPlan: true,
          settledAt: T.later,
          updatedAt: T.created,
        }),
      ),
    ]);
    expect(attentionThreads(threads).map((t) => t.threadId)).toEqual(["failed", "question", "plan-settled"]);
  });
});

describe("controlPlaneLists (t3_control_plane)", () => {
  const candidates = [
    candidate(
      "question",
      activeRow("running", {
        pendingRuntimeRequest: { id: "req-1", kind: "command", createdAt: T.afterSnooze },
      }),
    ),
    candidate("running", activeRow("starting")),
    candidate("completed", finishedRow("completed")),
    candidate("failed", finishedRow("failed")),
    candidate("interrupted", finishedRow("interrupted")),
    candidate("settled", finishedRow("completed", { settledAt: T.later, settledOverride: "settled" })),
    candidate("snoozed", snoozedFinished("completed")),
    candidate("no-run", shellRow()),
    candidate("unknown", finishedRow("hibernating")),
    candidate(
      "background",
      finishedRow("completed", { pendingBackgroundTasks: [{ taskId: "t", taskType: "command" }] }),
    ),
  ];
  const lists = controlPlaneLists(candidates, { now: BEFORE_WAKE });
  const ids = (list: { threads: Array<{ threadId: string | null }> }) =>
    list.threads.map((t) => t.threadId).sort();

  it("puts each thread in at most one list by its canonical state", () => {
    expect(ids(lists.needsIntervention)).toEqual(["question"]);
    expect(ids(lists.running)).toEqual(["running"]);
    expect(ids(lists.ready)).toEqual(["background", "completed", "failed", "interrupted"]);
  });

  it("gives ready items their reasons, blockers and actionableNow", () => {
    const byId = Object.fromEntries(lists.ready.threads.map((t) => [t.threadId, t]));
    expect(byId.completed).toMatchObject({
      readyReasons: ["latest_run_completed_unsettled"],
      blockers: [],
      actionableNow: true,
    });
    expect(byId.failed?.readyReasons).toEqual(["latest_run_failed_unsettled"]);
    expect(byId.interrupted?.readyReasons).toEqual(["latest_run_cancelled_unsettled"]);
    expect(byId.background).toMatchObject({ blockers: ["background_work_pending"], actionableNow: false });
  });

  it("adds the active run, the compact pending request and the thread read to call next", () => {
    const [question] = lists.needsIntervention.threads;
    expect(question).toMatchObject({
      environment: LOCAL,
      activeRun: { runId: "run:thread:th-1:ordinal:1", status: "running" },
      pendingRequest: {
        requestId: "req-1",
        kind: "command",
        reason: "command approval",
        since: T.afterSnooze,
        contentInThreadRead: true,
      },
      next: { tool: "t3_thread", input: { environment: "local", threadId: "question" } },
    });
    expect(question).not.toHaveProperty("readyReasons");
    expect(lists.running.threads[0]?.pendingRequest).toBeNull();
  });

  it("a snoozed thread becomes ready once the snooze time passes, as woke", () => {
    const after = controlPlaneLists([candidate("snoozed", snoozedFinished("completed"), AFTER_WAKE)], {
      now: AFTER_WAKE,
    });
    expect(after.ready.threads[0]).toMatchObject({
      threadId: "snoozed",
      readyReasons: ["latest_run_completed_unsettled", "woke"],
      woke: true,
      wokeAt: T.snoozedUntil,
    });
    expect(after.ready.threads[0]?.snoozedUntil).toBeNull();
  });

  it("a snoozed thread that needs intervention shows when its snooze ends", () => {
    const row = { ...snoozedFinished("completed"), hasActionableProposedPlan: true };
    const result = controlPlaneLists([candidate("plan", row)], { now: BEFORE_WAKE });
    expect(result.needsIntervention.threads[0]?.snoozedUntil).toBe(T.snoozedUntil);
  });

  it("a woke thread without a run is ready because of the marker alone", () => {
    const row = shellRow({ snoozedAt: T.snoozedAt, snoozedUntil: T.snoozedUntil });
    const result = controlPlaneLists([candidate("reminder", row, AFTER_WAKE)], { now: AFTER_WAKE });
    expect(result.ready.threads[0]).toMatchObject({ state: "no_run", readyReasons: ["woke"] });
  });

  it("orders each list newest first, then by environment and thread, and cuts it at limit", () => {
    const many = [
      candidate("b", finishedRow("completed", { updatedAt: T.snoozedAt }), BEFORE_WAKE, LOCAL),
      candidate("a", finishedRow("completed", { updatedAt: T.snoozedAt }), BEFORE_WAKE, LOCAL),
      candidate("z", finishedRow("completed", { updatedAt: T.snoozedAt }), BEFORE_WAKE, REMOTE),
      candidate("newest", finishedRow("completed", { updatedAt: T.later }), BEFORE_WAKE, REMOTE),
      candidate("undated", finishedRow("completed", { updatedAt: "??" }), BEFORE_WAKE, LOCAL),
    ];
    const all = controlPlaneLists(many, { now: BEFORE_WAKE, limit: 100 }).ready;
    expect(all.threads.map((t) => t.threadId)).toEqual(["newest", "a", "b", "z", "undated"]);
    const cut = controlPlaneLists(many, { now: BEFORE_WAKE, limit: 2 }).ready;
    expect(cut).toMatchObject({ total: 5, returned: 2, truncated: true });
    expect(cut.threads.map((t) => t.threadId)).toEqual(["newest", "a"]);
  });

  it("counts every visible thread by state", () => {
    expect(countByState(candidates.map((c) => c.summary))).toEqual({
      running: 1,
      needs_intervention: 1,
      completed: 4,
      failed: 1,
      cancelled: 1,
      no_run: 1,
      unknown: 1,
    });
  });
});
