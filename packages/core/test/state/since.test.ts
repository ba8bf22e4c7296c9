import { describe, expect, it } from "vitest";
import { countSinceChanges, rowChangesSince, rowHighWaterMs } from "../../src/state/since.js";

const at = (minute: number) => new Date(Date.UTC(2026, 11, 6, 7, minute)).toISOString();
const ms = (minute: number) => Date.parse(at(minute));

const ROW = {
  id: "t1",
  createdAt: at(0),
  updatedAt: at(30),
  latestRunId: "run-2",
  latestRunStartedAt: at(10),
  latestRunCompletedAt: at(20),
  status: "failed",
  pendingRuntimeRequest: { id: "r1", kind: "command", createdAt: at(25) },
  pendingSecretRequest: { id: "s1", createdAt: at(26) },
  archivedAt: at(30),
};

describe("rowChangesSince", () => {
  it("dates each change by the row's own field, oldest first", () => {
    expect(rowChangesSince(ROW, { ms: ms(0), inclusive: true }).map((change) => change.kind)).toEqual([
      "thread_created",
      "run_started",
      "run_ended",
      "asked_for_person",
      "asked_for_person",
      "thread_archived",
    ]);
    expect(rowChangesSince(ROW, { ms: ms(15), inclusive: true })).toEqual([
      { kind: "run_ended", at: at(20), runId: "run-2", runStatus: "failed" },
      { kind: "asked_for_person", at: at(25), requestKind: "command" },
      { kind: "asked_for_person", at: at(26), requestKind: "secret" },
      { kind: "thread_archived", at: at(30) },
    ]);
  });

  it("takes a time asked as inclusive and a cursor's mark as already reported", () => {
    expect(rowChangesSince(ROW, { ms: ms(30), inclusive: true })).toEqual([
      { kind: "thread_archived", at: at(30) },
    ]);
    expect(rowChangesSince(ROW, { ms: ms(30), inclusive: false })).toEqual([]);
  });

  it("reports no end for a run still going, and ignores unreadable times", () => {
    const running = { ...ROW, status: "running", latestRunCompletedAt: null, createdAt: "yesterday" };
    const kinds = rowChangesSince(running, { ms: ms(0), inclusive: true }).map((change) => change.kind);
    expect(kinds).not.toContain("run_ended");
    expect(kinds).not.toContain("thread_created");
  });
});

describe("rowHighWaterMs and countSinceChanges", () => {
  it("marks the newest instant on the row and counts failed runs among ended ones", () => {
    expect(rowHighWaterMs(ROW)).toBe(ms(30));
    expect(rowHighWaterMs({})).toBe(Number.NEGATIVE_INFINITY);
    const counts = countSinceChanges([
      ...rowChangesSince(ROW, { ms: ms(0), inclusive: true }),
      { kind: "thread_renamed", at: at(31), from: "a", to: "b" },
    ]);
    expect(counts).toEqual({
      runsStarted: 1,
      runsEnded: 1,
      runsFailed: 1,
      askedForPerson: 2,
      threadsCreated: 1,
      threadsArchived: 1,
      threadsRenamed: 1,
    });
  });
});
