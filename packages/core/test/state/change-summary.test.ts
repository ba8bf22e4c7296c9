import { changeLine, latestCheckpoint, threadChangeSummary } from "@t3-connector/core/state";
import { describe, expect, it } from "vitest";

const file = (path: string, additions: number, deletions: number) => ({
  path,
  kind: "modified",
  additions,
  deletions,
});

const checkpoint = (ordinal: number, runId: string, files: ReturnType<typeof file>[], status = "ready") => ({
  id: `checkpoint:${ordinal}`,
  runId,
  status,
  appRunOrdinal: ordinal,
  files,
  capturedAt: "2026-12-07T10:00:00.000Z",
});

describe("threadChangeSummary", () => {
  it("sums the files of the latest checkpoint", () => {
    const summary = threadChangeSummary({
      runs: [
        { id: "r1", ordinal: 1, status: "completed" },
        { id: "r2", ordinal: 2, status: "completed" },
      ],
      checkpoints: [
        checkpoint(2, "r2", [file("a.ts", 5, 1), file("b.ts", 2, 3)]),
        checkpoint(1, "r1", [file("z.ts", 9, 9)]),
      ],
    });
    expect(summary).toEqual({
      files: 2,
      additions: 7,
      deletions: 4,
      runId: "r2",
      turnCount: 2,
      checkpointId: "checkpoint:2",
      line: "2 files changed, +7 -4",
    });
  });

  it("follows T3's rule: a checkpoint that is not ready, or of a run not completed, is skipped", () => {
    const source = {
      runs: [
        { id: "r1", ordinal: 1, status: "completed" },
        { id: "r2", ordinal: 2, status: "rolled_back" },
        { id: "r3", ordinal: 3, status: "completed" },
      ],
      checkpoints: [
        checkpoint(1, "r1", [file("one.ts", 1, 0)]),
        checkpoint(2, "r2", [file("two.ts", 1, 0)]),
        checkpoint(3, "r3", [file("three.ts", 1, 0)], "error"),
      ],
    };
    expect(latestCheckpoint(source)?.id).toBe("checkpoint:1");
    expect(threadChangeSummary(source)?.line).toBe("1 file changed, +1 -0");
  });

  it("answers null when no run left a checkpoint", () => {
    expect(threadChangeSummary({ runs: [{ id: "r1", status: "running" }], checkpoints: [] })).toBeNull();
    expect(threadChangeSummary({})).toBeNull();
  });

  it("says 'no changes' for a checkpoint whose run changed nothing, and ignores bad counts", () => {
    expect(threadChangeSummary({ checkpoints: [checkpoint(1, "r1", [])] })?.line).toBe("no changes");
    const odd = { ...checkpoint(1, "r1", []), files: [{ path: "x", additions: -3, deletions: Number.NaN }] };
    expect(threadChangeSummary({ checkpoints: [odd] })).toMatchObject({
      files: 1,
      additions: 0,
      deletions: 0,
    });
  });

  it("writes the line for one and for many files", () => {
    expect(changeLine(1, 3, 0)).toBe("1 file changed, +3 -0");
    expect(changeLine(12, 400, 17)).toBe("12 files changed, +400 -17");
  });
});
