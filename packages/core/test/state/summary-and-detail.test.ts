import { describe, expect, it } from "vitest";
import {
  activeRunDetail,
  historyBounds,
  latestResponse,
  latestRunDetail,
  modelSummary,
  providerSessionDetail,
  recentMessages,
  threadDetailFields,
  threadSummary,
} from "../../src/state/index.js";
import { activeRow, finishedRow, ms, projection, RUN_1, RUN_2, shellRow, T } from "./rows.js";

const NOW = ms(T.later);

describe("threadSummary", () => {
  it("carries identity, project, directory, model, state, settled and woke", () => {
    const summary = threadSummary(
      finishedRow("completed", {
        branch: "feature/x",
        modelSelection: {
          instanceId: "codex",
          model: "gpt-5.6-sol",
          options: [{ id: "reasoningEffort", value: "high" }],
        },
      }),
      { now: NOW, project: { id: "proj-1", title: "Fixtures", workspaceRoot: "/home/dev/fixtures" } },
    );
    expect(summary).toEqual({
      threadId: "th-1",
      title: "a thread",
      project: { projectId: "proj-1", title: "Fixtures" },
      directory: "/home/dev/fixtures",
      branch: "feature/x",
      model: { model: "gpt-5.6-sol", instanceId: "codex", effort: "high" },
      runtimeMode: "full-access",
      state: "completed",
      stateSource: "latest_run",
      statusRun: "completed",
      runId: RUN_1,
      updatedAt: T.later,
      settled: false,
      pinned: false,
      snoozedUntil: null,
      woke: false,
      wokeAt: null,
    });
  });

  it("shows a pin, and a snooze only while the thread still sleeps", () => {
    const sleeping = threadSummary(
      shellRow({ pinnedAt: T.created, snoozedAt: T.snoozedAt, snoozedUntil: T.snoozedUntil }),
      { now: ms(T.afterSnooze) },
    );
    expect(sleeping).toMatchObject({ pinned: true, snoozedUntil: T.snoozedUntil });
    const awake = threadSummary(shellRow({ snoozedAt: T.snoozedAt, snoozedUntil: T.snoozedUntil }), {
      now: ms(T.later),
    });
    expect(awake).toMatchObject({ pinned: false, snoozedUntil: null });
  });

  it("prefers the worktree as directory and names only the projectId without a project row", () => {
    const summary = threadSummary(shellRow({ worktreePath: "/wt/feature" }), { now: NOW });
    expect(summary.project).toEqual({ projectId: "proj-1" });
    expect(summary.directory).toBe("/wt/feature");
  });

  it("is settled when settledAt is set", () => {
    expect(
      threadSummary(shellRow({ settledAt: T.later, settledOverride: "settled" }), { now: NOW }).settled,
    ).toBe(true);
  });

  it("reports a non-string title as null instead of passing garbage on", () => {
    const row = shellRow();
    (row as Record<string, unknown>).title = 42;
    expect(threadSummary(row, { now: NOW }).title).toBeNull();
  });
});

describe("modelSummary", () => {
  it.each([
    [
      "reasoningEffort wins over effort",
      {
        instanceId: "c",
        model: "m",
        options: [
          { id: "effort", value: "low" },
          { id: "reasoningEffort", value: "max" },
        ],
      },
      "max",
    ],
    [
      "effort when there is no reasoningEffort",
      { instanceId: "c", model: "m", options: [{ id: "effort", value: "low" }] },
      "low",
    ],
    [
      "legacy object options",
      { instanceId: "c", model: "m", options: { effort: "medium", fastMode: true } },
      "medium",
    ],
    [
      "a boolean option is not an effort",
      { instanceId: "c", model: "m", options: [{ id: "effort", value: true }] },
      null,
    ],
    ["no options", { instanceId: "c", model: "m" }, null],
  ])("%s", (_name, selection, effort) => {
    expect(modelSummary(selection).effort).toBe(effort);
  });

  it("promotes the legacy provider field to instanceId", () => {
    expect(modelSummary({ provider: "claudeAgent", model: "opus" })).toEqual({
      model: "opus",
      instanceId: "claudeAgent",
      effort: null,
    });
  });

  it("is all null without a selection", () => {
    expect(modelSummary(null)).toEqual({ model: null, instanceId: null, effort: null });
  });
});

describe("activeRun and latestRun", () => {
  const runs = [
    {
      id: RUN_1,
      ordinal: 1,
      status: "running",
      modelSelection: { instanceId: "codex", model: "gpt-5.6-sol" },
    },
    {
      id: RUN_2,
      ordinal: 2,
      status: "queued",
      modelSelection: { instanceId: "codex", model: "gpt-5.6-sol-mini" },
    },
  ];

  it("takes the active run's ordinal, status and requested model from the projection", () => {
    const row = activeRow("running", { latestRunId: RUN_2, status: "queued" });
    expect(activeRunDetail(row, projection({ runs }))).toEqual({
      runId: RUN_1,
      ordinal: 1,
      status: "running",
      model: { model: "gpt-5.6-sol", instanceId: "codex", effort: null },
    });
    expect(latestRunDetail(row, projection({ runs }))).toEqual({
      runId: RUN_2,
      ordinal: 2,
      status: "queued",
    });
  });

  it("falls back to the shell when the bounded snapshot omits the run", () => {
    const row = activeRow("starting");
    expect(activeRunDetail(row, projection())).toEqual({
      runId: RUN_1,
      ordinal: null,
      status: "starting",
      model: null,
    });
    expect(latestRunDetail(row, projection())).toEqual({ runId: RUN_1, ordinal: null, status: "starting" });
  });

  it("is null without runs", () => {
    expect(activeRunDetail(shellRow(), projection())).toBeNull();
    expect(latestRunDetail(shellRow(), projection())).toBeNull();
  });
});

describe("providerSession", () => {
  const sessions = [
    {
      providerInstanceId: "codex",
      status: "ready",
      cwd: "/old",
      model: "gpt-5.6-sol",
      updatedAt: T.snoozedAt,
    },
    {
      providerInstanceId: "codex",
      status: "running",
      cwd: "/new",
      model: "gpt-5.6-sol-mini",
      updatedAt: T.later,
    },
    { providerInstanceId: "claudeAgent", status: "ready", cwd: "/other", model: "opus", updatedAt: T.later },
  ];

  it("is the newest session of the thread's instance, informational, with a note when the model differs", () => {
    expect(
      providerSessionDetail(shellRow(), projection({ providerSessions: sessions }), "gpt-5.6-sol"),
    ).toEqual({
      status: "running",
      directory: "/new",
      model: "gpt-5.6-sol-mini",
      informational: true,
      note: "The provider session last reported model gpt-5.6-sol-mini; the canonical model is gpt-5.6-sol.",
    });
  });

  it("has no note when the models agree, and is null without a session of that instance", () => {
    expect(
      providerSessionDetail(shellRow(), projection({ providerSessions: sessions }), "gpt-5.6-sol-mini"),
    ).not.toHaveProperty("note");
    expect(
      providerSessionDetail(
        shellRow({ providerInstanceId: "cursor" }),
        projection({ providerSessions: sessions }),
        null,
      ),
    ).toBeNull();
  });

  it("compares with the active run's model first", () => {
    const runs = [
      {
        id: RUN_1,
        ordinal: 1,
        status: "running",
        modelSelection: { instanceId: "codex", model: "gpt-5.6-sol-mini" },
      },
    ];
    const detail = threadDetailFields(
      activeRow("running"),
      projection({ runs, providerSessions: sessions }),
      null,
    );
    expect(detail.providerSession?.note).toBeUndefined();
  });
});

describe("latestResponse", () => {
  const messages = [
    {
      id: "m1",
      role: "assistant",
      runId: RUN_1,
      text: "first answer",
      streaming: false,
      createdAt: T.created,
      updatedAt: T.created,
    },
    {
      id: "m2",
      role: "user",
      runId: RUN_2,
      text: "newer question",
      streaming: false,
      createdAt: T.later,
      updatedAt: T.later,
    },
    {
      id: "m3",
      role: "assistant",
      runId: RUN_2,
      text: "",
      streaming: true,
      createdAt: T.later,
      updatedAt: T.later,
    },
    {
      id: "m4",
      role: "assistant",
      runId: RUN_1,
      text: "second answer",
      streaming: true,
      createdAt: T.snoozedAt,
      updatedAt: T.afterSnooze,
    },
  ];

  it("is the newest assistant message that has text", () => {
    expect(latestResponse(projection({ messages }))).toEqual({
      messageId: "m4",
      runId: RUN_1,
      text: "second answer",
      truncated: false,
      streaming: true,
      updatedAt: T.afterSnooze,
    });
  });

  it("keeps the END of a long response", () => {
    const text = `${"a".repeat(300)}THE END`;
    const response = latestResponse(projection({ messages: [{ ...messages[0], text }] }), 200);
    expect(response?.truncated).toBe(true);
    expect(response?.text).toBe(`…${"a".repeat(193)}THE END`);
  });

  it("counts characters, not UTF-16 units, and never splits a pair", () => {
    const text = "😀".repeat(250);
    const response = latestResponse(projection({ messages: [{ ...messages[0], text }] }), 200);
    expect(response?.text).toBe(`…${"😀".repeat(200)}`);
  });

  it("is null without an assistant message with text", () => {
    expect(
      latestResponse(projection({ messages: messages.filter((m) => m.id === "m2" || m.id === "m3") })),
    ).toBeNull();
  });
});

describe("history bounds", () => {
  it.each([
    ["a full snapshot is complete", null, { complete: true, payloadBudgetExceeded: false }],
    [
      "a bounded window with more history",
      { hasMoreHistory: true },
      { complete: false, payloadBudgetExceeded: false },
    ],
    [
      "a bounded window over budget",
      { hasMoreHistory: false, payloadBudgetExceeded: true },
      { complete: true, payloadBudgetExceeded: true },
    ],
  ])("%s", (_name, bounds, expected) => {
    expect(historyBounds(bounds)).toEqual(expected);
  });
});

describe("recentMessages (t3_mensagens)", () => {
  const messages = Array.from({ length: 9 }, (_, index) => ({
    id: `m${index}`,
    role: index % 2 === 0 ? "user" : "assistant",
    text: index === 4 ? "" : `message ${index}`,
    streaming: false,
    createdAt: new Date(ms(T.created) + index * 1000).toISOString(),
  }));

  it("keeps the last `limit` messages with text, oldest first", () => {
    const shuffled = [...messages.slice(8), ...messages.slice(0, 8)];
    expect(recentMessages(projection({ messages: shuffled }), { limit: 3 }).map((m) => m.messageId)).toEqual([
      "m6",
      "m7",
      "m8",
    ]);
    expect(recentMessages(projection({ messages })).map((m) => m.messageId)).toEqual([
      "m2",
      "m3",
      "m5",
      "m6",
      "m7",
      "m8",
    ]);
  });

  it("keeps the START of a long text", () => {
    const long = [{ ...messages[0], text: `BEGIN${"z".repeat(200)}` }];
    expect(recentMessages(projection({ messages: long }), { maxCharacters: 100 })[0]).toMatchObject({
      text: `BEGIN${"z".repeat(95)}…`,
      truncated: true,
      role: "user",
      streaming: false,
    });
  });
});

describe("lenient input: unknown enums and missing fields never crash", () => {
  it("an empty row gives an unknown state and an undecidable woke marker", () => {
    expect(threadSummary({}, { now: NOW })).toMatchObject({
      threadId: null,
      title: null,
      project: { projectId: null },
      directory: null,
      model: { model: null, instanceId: null, effort: null },
      state: "unknown",
      stateSource: "latest_run",
      statusRun: null,
      runId: null,
      settled: false,
      woke: null,
      wokeAt: null,
    });
  });

  it("unknown statuses, activity, overrides and request kinds map to documented fallbacks", () => {
    const row = shellRow({
      latestRunId: RUN_2,
      activeRunId: RUN_1,
      activityRunStatus: "teleporting",
      status: "from_the_future",
      settledOverride: "maybe",
      snoozedUntil: T.snoozedUntil,
      snoozedAt: T.snoozedAt,
      pendingRuntimeRequest: { id: "r", kind: "telepathy", createdAt: T.later },
    });
    expect(threadSummary(row, { now: NOW })).toMatchObject({
      state: "needs_intervention",
      reason: "pending request of kind telepathy",
      statusRun: "teleporting",
      runId: RUN_1,
      latestRunId: RUN_2,
      latestRunStatus: "from_the_future",
      woke: true,
    });
  });
});
