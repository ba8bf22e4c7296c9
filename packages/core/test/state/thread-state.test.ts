import { describe, expect, it } from "vitest";
import {
  activeRunFromShell,
  type PendingRequestRef,
  requestReason,
  type ShellThreadInput,
  threadState,
} from "../../src/state/index.js";
import { activeRow, finishedRow, RUN_1, RUN_2, shellRow, T } from "./rows.js";

describe("activeRunFromShell (the active run from the shell row)", () => {
  const cases: Array<[string, ShellThreadInput, ReturnType<typeof activeRunFromShell>]> = [
    ["no activity at all", shellRow(), null],
    [
      "the active run is the newest run: its status is the shell status",
      activeRow("running"),
      { runId: RUN_1, status: "running" },
    ],
    [
      "an older run is active: the activity status, not the newest run's",
      activeRow("running", { latestRunId: RUN_2, status: "queued" }),
      { runId: RUN_1, status: "running" },
    ],
    [
      "an older run is active and the activity reads waiting: reported as running",
      activeRow("waiting", { latestRunId: RUN_2, status: "queued" }),
      { runId: RUN_1, status: "running" },
    ],
    [
      "an older run is active without activity status: running",
      activeRow("running", { latestRunId: RUN_2, status: "cancelled", activityRunStatus: null }),
      { runId: RUN_1, status: "running" },
    ],
    [
      "a waiting run is not in activeRunId; named when the newest run has that status",
      shellRow({ latestRunId: RUN_1, activityRunStatus: "waiting", status: "waiting" }),
      { runId: RUN_1, status: "waiting" },
    ],
    [
      "activity that the newest run's status does not match cannot be named",
      shellRow({ latestRunId: RUN_1, activityRunStatus: "running", status: "queued" }),
      { runId: null, status: "running" },
    ],
  ];
  it.each(cases)("%s", (_name, row, expected) => {
    expect(activeRunFromShell(row)).toEqual(expected);
  });
});

describe("threadState precedence (the first matching signal wins)", () => {
  const shellRequest = { id: "req-shell", kind: "command", createdAt: T.afterSnooze };

  it("a pending request in the shell beats an active run", () => {
    const state = threadState(activeRow("running", { pendingRuntimeRequest: shellRequest }));
    expect(state).toMatchObject({
      state: "needs_intervention",
      stateSource: "pending_request",
      reason: "command approval",
      kind: "command",
      identifier: { runtimeRequestId: "req-shell" },
      since: T.afterSnooze,
      statusRun: "running",
      runId: RUN_1,
    });
  });

  it("a pending request of the projection decides when the shell has none, using the oldest", () => {
    const pending: PendingRequestRef[] = [
      { runtimeRequestId: "req-new", kind: "command", since: T.later },
      { runtimeRequestId: "req-old", kind: "user_input", since: T.snoozedAt },
    ];
    expect(threadState(activeRow("running"), pending)).toMatchObject({
      state: "needs_intervention",
      stateSource: "pending_request",
      kind: "user_input",
      reason: "question waiting for an answer",
      identifier: { runtimeRequestId: "req-old" },
      since: T.snoozedAt,
    });
  });

  it("the shell's pending request wins over the projection's", () => {
    const pending: PendingRequestRef[] = [
      { runtimeRequestId: "req-old", kind: "user_input", since: T.created },
    ];
    expect(threadState(shellRow({ pendingRuntimeRequest: shellRequest }), pending).identifier).toEqual({
      runtimeRequestId: "req-shell",
    });
  });

  const usageLimit = { runId: RUN_1, autoResume: false, resetAt: T.later };

  const cases: Array<[string, ShellThreadInput, Record<string, unknown>]> = [
    [
      "an active run: running from the active run",
      activeRow("running"),
      { state: "running", stateSource: "active_run", statusRun: "running", runId: RUN_1 },
    ],
    [
      "a stuck starting run is still running",
      activeRow("starting"),
      { state: "running", stateSource: "active_run", statusRun: "starting" },
    ],
    [
      "a queued newest run without any active marker: running from the latest run",
      shellRow({ latestRunId: RUN_1, status: "queued" }),
      { state: "running", stateSource: "latest_run", statusRun: "queued", runId: RUN_1 },
    ],
    [
      "an active run beats a usage limit and a proposed plan",
      activeRow("running", { limitRecovery: usageLimit, hasActionableProposedPlan: true }),
      { state: "running", stateSource: "active_run" },
    ],
    [
      "a running run with an automatic usage-limit resume says when it resumes",
      activeRow("running", { limitRecovery: { runId: RUN_1, autoResume: true, resumeAt: T.later } }),
      { state: "running", resumeAt: T.later },
    ],
    [
      "a usage limit without automatic resume needs intervention",
      finishedRow("failed", { limitRecovery: usageLimit }),
      {
        state: "needs_intervention",
        stateSource: "usage_limit",
        kind: "usage_limit",
        identifier: { runId: RUN_1 },
        since: null,
        resetAt: T.later,
      },
    ],
    [
      "a usage limit that does not say autoResume is treated as manual",
      finishedRow("failed", { limitRecovery: { runId: RUN_1 } }),
      { state: "needs_intervention", stateSource: "usage_limit" },
    ],
    [
      "a usage limit that resumes by itself is not an intervention",
      finishedRow("completed", { limitRecovery: { runId: RUN_1, autoResume: true, resumeAt: T.later } }),
      { state: "completed", stateSource: "latest_run" },
    ],
    [
      "a usage limit beats a proposed plan",
      finishedRow("completed", { limitRecovery: usageLimit, hasActionableProposedPlan: true }),
      { stateSource: "usage_limit" },
    ],
    [
      "an actionable proposed plan needs intervention, since the run completed",
      finishedRow("completed", { hasActionableProposedPlan: true }),
      {
        state: "needs_intervention",
        stateSource: "proposed_plan",
        kind: "proposed_plan",
        identifier: { runId: RUN_1 },
        since: T.later,
      },
    ],
    [
      "a completed latest run",
      finishedRow("completed"),
      { state: "completed", stateSource: "latest_run", statusRun: "completed", runId: RUN_1 },
    ],
    [
      "a failed latest run carries the error and its class",
      finishedRow("failed", { lastError: "provider crashed", lastErrorClass: "provider_error" }),
      { state: "failed", stateSource: "latest_run", error: "provider crashed", errorClass: "provider_error" },
    ],
    [
      "a failed latest run with a failure object",
      finishedRow("failed", { lastError: { message: "socket closed", class: "transport_error" } }),
      { state: "failed", error: "socket closed", errorClass: "transport_error" },
    ],
    [
      "a failed run on a usage limit (newer servers) carries the class and when the limit resets",
      finishedRow("failed", {
        lastError: "limit hit",
        lastErrorClass: "usage_limit",
        usageLimitResetAt: T.later,
      }),
      { state: "failed", error: "limit hit", errorClass: "usage_limit", resetAt: T.later },
    ],
    [
      "the row's lastErrorClass wins over the failure object's class",
      finishedRow("failed", {
        lastError: { message: "denied", class: "unknown" },
        lastErrorClass: "permission_error",
      }),
      { state: "failed", error: "denied", errorClass: "permission_error" },
    ],
    [
      "a usage-limit record without resetAt takes the row's usageLimitResetAt",
      finishedRow("failed", { limitRecovery: { runId: RUN_1 }, usageLimitResetAt: T.later }),
      { state: "needs_intervention", stateSource: "usage_limit", resetAt: T.later },
    ],
    ["a cancelled latest run", finishedRow("cancelled"), { state: "cancelled", stateSource: "latest_run" }],
    [
      "an interrupted latest run reads cancelled",
      finishedRow("interrupted"),
      { state: "cancelled", statusRun: "interrupted" },
    ],
    ["a rolled back latest run reads cancelled", finishedRow("rolled_back"), { state: "cancelled" }],
    ["no run", shellRow(), { state: "no_run", stateSource: "no_run", statusRun: "idle", runId: null }],
    [
      "an unknown run status is unknown, not a crash",
      finishedRow("paused_by_operator"),
      { state: "unknown", stateSource: "latest_run", statusRun: "paused_by_operator", runId: RUN_1 },
    ],
    [
      "a row without status is unknown",
      shellRow({ status: undefined }),
      { state: "unknown", statusRun: null },
    ],
    [
      "an unknown status on the active run still reads running: a run is active",
      activeRow("hibernating"),
      { state: "running", stateSource: "active_run", statusRun: "hibernating" },
    ],
  ];
  it.each(cases)("%s", (_name, row, expected) => {
    expect(threadState(row)).toMatchObject(expected);
  });

  it("a waiting run is running, with a note that no pending request is visible", () => {
    const state = threadState(
      shellRow({ latestRunId: RUN_1, activityRunStatus: "waiting", status: "waiting" }),
    );
    expect(state).toMatchObject({
      state: "running",
      stateSource: "active_run",
      statusRun: "waiting",
      runId: RUN_1,
    });
    expect(state.note).toMatch(/no pending request is visible/);
  });

  it("a completed run with background work lists the tasks", () => {
    const state = threadState(
      finishedRow("completed", {
        pendingBackgroundTasks: [
          { taskId: "t1", taskType: "command", description: "npm test" },
          { taskId: "t2" },
        ],
      }),
    );
    expect(state.backgroundTasks).toEqual([
      { kind: "command", taskId: "t1", description: "npm test" },
      { kind: null, taskId: "t2", description: null },
    ]);
  });

  it("a completed run without background work has no backgroundTasks field", () => {
    expect(threadState(finishedRow("completed"))).not.toHaveProperty("backgroundTasks");
  });

  it("the newest run is never reported as informational when it is the run state describes", () => {
    const state = threadState(activeRow("running"));
    expect(state).not.toHaveProperty("latestRunId");
    expect(state).not.toHaveProperty("note");
  });
});

describe("threadState when the newest run is not the active one", () => {
  it("a run queued behind the active run: state follows the active run", () => {
    const row = activeRow("running", { latestRunId: RUN_2, status: "queued" });
    const state = threadState(row);
    expect(state).toMatchObject({
      state: "running",
      stateSource: "active_run",
      statusRun: "running",
      runId: RUN_1,
      latestRunId: RUN_2,
      latestRunStatus: "queued",
    });
    expect(state.note).toContain(RUN_2);
    expect(state.note).toContain("queued");
  });

  it("a queued message promoted to steer leaves the newest run cancelled: still running", () => {
    const row = activeRow("running", { latestRunId: RUN_2, status: "cancelled" });
    expect(threadState(row)).toMatchObject({
      state: "running",
      runId: RUN_1,
      latestRunId: RUN_2,
      latestRunStatus: "cancelled",
    });
  });

  it("a pending request keeps the informational newest run", () => {
    const row = activeRow("running", {
      latestRunId: RUN_2,
      status: "queued",
      pendingRuntimeRequest: { id: "r", kind: "user_input", createdAt: T.later },
    });
    expect(threadState(row)).toMatchObject({
      state: "needs_intervention",
      runId: RUN_1,
      latestRunId: RUN_2,
      latestRunStatus: "queued",
    });
  });
});

describe("requestReason", () => {
  it.each([
    ["command", "command approval"],
    ["file-read", "file read approval"],
    ["file-change", "file change approval"],
    ["permission", "permission approval"],
    ["mcp-elicitation", "MCP tool asking for data"],
    ["user_input", "question waiting for an answer"],
    ["dynamic_tool_call", "tool call waiting for a response"],
    ["auth_refresh", "provider asking to authenticate again"],
    ["brand_new_kind", "pending request of kind brand_new_kind"],
  ])("%s → %s", (kind, reason) => {
    expect(requestReason(kind)).toBe(reason);
  });
});

describe("threadState on older servers without the newer shell fields", () => {
  it("reports a failed run without resetAt or a class when the row has neither", () => {
    const fields = threadState(finishedRow("failed", { lastError: "provider crashed" }));
    expect(fields).toMatchObject({ state: "failed", error: "provider crashed", errorClass: null });
    expect(fields).not.toHaveProperty("resetAt");
  });
});
