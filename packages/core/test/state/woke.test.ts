import { describe, expect, it } from "vitest";
import { isSnoozed, type ShellThreadInput, type WokeMarker, wokeMarker } from "../../src/state/index.js";
import { finishedRow, ms, shellRow, T } from "./rows.js";

const BEFORE_WAKE = ms(T.afterSnooze); // the snooze is still in the future
const AFTER_WAKE = ms(T.later); // the snooze time has passed

/** A thread snoozed at `snoozedAt` until `snoozedUntil`, with nothing else going on. */
const snoozed = (overrides: ShellThreadInput = {}): ShellThreadInput =>
  shellRow({ snoozedAt: T.snoozedAt, snoozedUntil: T.snoozedUntil, updatedAt: T.snoozedAt, ...overrides });

describe("wokeMarker: deciding whether it can be decided", () => {
  it("is null when the server does not send snoozedUntil at all", () => {
    const row = shellRow();
    delete row.snoozedUntil;
    expect(wokeMarker(row, AFTER_WAKE)).toEqual({ woke: null, wokeAt: null });
  });

  it("is false when the thread never snoozed (snoozedUntil sent as null)", () => {
    expect(wokeMarker(shellRow({ snoozedUntil: null }), AFTER_WAKE)).toEqual({ woke: false, wokeAt: null });
  });

  it("is null with the wake instant when the server does not send lastVisitedAt", () => {
    const row = snoozed();
    delete row.lastVisitedAt;
    expect(wokeMarker(row, AFTER_WAKE)).toEqual({ woke: null, wokeAt: T.snoozedUntil });
  });

  it("is false, not null, for a still-snoozed thread even without lastVisitedAt", () => {
    const row = snoozed();
    delete row.lastVisitedAt;
    expect(wokeMarker(row, BEFORE_WAKE)).toEqual({ woke: false, wokeAt: null });
  });

  it("is false when snoozedUntil cannot be parsed", () => {
    expect(wokeMarker(snoozed({ snoozedUntil: "next tuesday" }), AFTER_WAKE)).toEqual({
      woke: false,
      wokeAt: null,
    });
  });
});

describe("wokeMarker: the snooze time", () => {
  const cases: Array<[string, ShellThreadInput, number, WokeMarker]> = [
    ["a future snooze is not woke yet", snoozed(), BEFORE_WAKE, { woke: false, wokeAt: null }],
    [
      "an expired snooze never visited is woke at the snooze time",
      snoozed(),
      AFTER_WAKE,
      { woke: true, wokeAt: T.snoozedUntil },
    ],
    [
      "the snooze time itself counts as passed",
      snoozed(),
      ms(T.snoozedUntil),
      { woke: true, wokeAt: T.snoozedUntil },
    ],
    [
      "visited after waking: acknowledged",
      snoozed({ lastVisitedAt: T.later }),
      AFTER_WAKE,
      { woke: false, wokeAt: T.snoozedUntil },
    ],
    [
      "visited exactly at the wake instant: acknowledged",
      snoozed({ lastVisitedAt: T.snoozedUntil }),
      AFTER_WAKE,
      { woke: false, wokeAt: T.snoozedUntil },
    ],
    [
      "visited before waking: still woke",
      snoozed({ lastVisitedAt: T.afterSnooze }),
      AFTER_WAKE,
      { woke: true, wokeAt: T.snoozedUntil },
    ],
    [
      "an unparsable visited watermark does not acknowledge",
      snoozed({ lastVisitedAt: "garbage" }),
      AFTER_WAKE,
      { woke: true, wokeAt: T.snoozedUntil },
    ],
    [
      "an explicitly settled thread is not woke, but keeps its wake instant",
      snoozed({ settledOverride: "settled", settledAt: T.afterSnooze }),
      AFTER_WAKE,
      { woke: false, wokeAt: T.snoozedUntil },
    ],
  ];
  it.each(cases)("%s", (_name, row, now, expected) => {
    expect(wokeMarker(row, now)).toEqual(expected);
  });

  it("reads the injected clock once", () => {
    let reads = 0;
    const clock = {
      now: () => {
        reads += 1;
        return AFTER_WAKE;
      },
    };
    expect(wokeMarker(snoozed(), clock)).toEqual({ woke: true, wokeAt: T.snoozedUntil });
    expect(reads).toBe(1);
  });
});

describe("wokeMarker: waking early (the thread raised its hand)", () => {
  const withRun = { latestRunId: "run-1", activeProviderThreadId: "pt-1" };
  const cases: Array<[string, ShellThreadInput, WokeMarker]> = [
    [
      "a pending approval wakes it at the row's update time",
      snoozed({
        ...withRun,
        status: "running",
        activityRunStatus: "running",
        updatedAt: T.afterSnooze,
        pendingRuntimeRequest: { id: "r", kind: "command", createdAt: T.afterSnooze },
      }),
      { woke: true, wokeAt: T.afterSnooze },
    ],
    [
      "a pending question on a thread without a runtime wakes it at the snooze start",
      snoozed({ pendingRuntimeRequest: { id: "r", kind: "user_input", createdAt: T.afterSnooze } }),
      { woke: true, wokeAt: T.snoozedAt },
    ],
    [
      "an auth refresh request does not wake it",
      snoozed({
        ...withRun,
        pendingRuntimeRequest: { id: "r", kind: "auth_refresh", createdAt: T.afterSnooze },
      }),
      { woke: false, wokeAt: null },
    ],
    [
      "a failure after the snooze wakes it",
      snoozed({ ...withRun, status: "failed", updatedAt: T.afterSnooze }),
      { woke: true, wokeAt: T.afterSnooze },
    ],
    [
      "a failure from before the snooze does not",
      snoozed({ ...withRun, status: "failed", updatedAt: T.snoozedAt }),
      { woke: false, wokeAt: null },
    ],
    [
      "a failed status while activity continues is not a fresh failure",
      snoozed({ ...withRun, status: "failed", activityRunStatus: "running", updatedAt: T.afterSnooze }),
      { woke: false, wokeAt: null },
    ],
    [
      "a failure on a thread snoozed without snoozedAt wakes it",
      snoozed({ ...withRun, status: "failed", snoozedAt: null, updatedAt: T.afterSnooze }),
      { woke: true, wokeAt: T.afterSnooze },
    ],
    [
      "a run completed after the snooze wakes it at the completion time",
      snoozed({
        ...withRun,
        status: "completed",
        latestRunCompletedAt: T.afterSnooze,
        updatedAt: T.afterSnooze,
      }),
      { woke: true, wokeAt: T.afterSnooze },
    ],
    [
      "a run completed before the snooze does not",
      snoozed({
        ...withRun,
        status: "completed",
        latestRunCompletedAt: T.beforeSnooze,
        updatedAt: T.snoozedAt,
      }),
      { woke: false, wokeAt: null },
    ],
    [
      "without latestRunCompletedAt the row's update time stands for the completion",
      snoozed({ ...withRun, status: "completed", latestRunCompletedAt: undefined, updatedAt: T.afterSnooze }),
      { woke: true, wokeAt: T.afterSnooze },
    ],
    [
      "a completion cannot be after a snooze whose start is unknown",
      snoozed({ ...withRun, status: "completed", snoozedAt: null, latestRunCompletedAt: T.afterSnooze }),
      { woke: false, wokeAt: null },
    ],
    [
      "an interrupted run is not a completion",
      snoozed({
        ...withRun,
        status: "interrupted",
        latestRunCompletedAt: T.afterSnooze,
        updatedAt: T.afterSnooze,
      }),
      { woke: false, wokeAt: null },
    ],
  ];
  it.each(cases)("%s", (_name, row, expected) => {
    expect(wokeMarker(row, BEFORE_WAKE)).toEqual(expected);
  });

  it("an early wake stays the wake instant after the snooze time passes", () => {
    const row = snoozed({ ...withRun, status: "completed", latestRunCompletedAt: T.afterSnooze });
    expect(wokeMarker(row, AFTER_WAKE)).toEqual({ woke: true, wokeAt: T.afterSnooze });
  });

  it("woke is independent of state: a completed, unsnoozed thread is not woke", () => {
    expect(wokeMarker(finishedRow("completed"), AFTER_WAKE)).toEqual({ woke: false, wokeAt: null });
  });
});

describe("isSnoozed", () => {
  it.each([
    ["a future snooze", snoozed(), BEFORE_WAKE, true],
    ["an expired snooze", snoozed(), AFTER_WAKE, false],
    ["never snoozed", shellRow(), BEFORE_WAKE, false],
    [
      "a future snooze that woke early",
      snoozed({ pendingRuntimeRequest: { id: "r", kind: "command", createdAt: T.afterSnooze } }),
      BEFORE_WAKE,
      false,
    ],
  ])("%s → %s", (_name, row, now, expected) => {
    expect(isSnoozed(row, now)).toBe(expected);
  });
});
