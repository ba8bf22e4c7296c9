/**
 * Whole shells decode their rows in place: the row objects answered are the parsed JSON's own
 * (no zod copy: a large shell would otherwise cost several times its size in heap), checked by the
 * same shape, with unknown keys kept, defaults filled in, and the same refusals, paths included.
 */
import { describe, expect, it } from "vitest";
import { ShellRowSchema, ShellSnapshotSchema, ThreadShellSchema } from "../../src/t3/index.js";
import { summarizeIssues } from "../../src/t3/wire/stream-items.js";

const row = (extra: Record<string, unknown> = {}) => ({
  id: "t1",
  projectId: "p1",
  title: "first",
  status: "completed",
  latestRunId: "run-1",
  modelSelection: { instanceId: "codex", model: "gpt", futureKnob: 3 },
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:01:00.000Z",
  aFieldOfANewerServer: { nested: true },
  ...extra,
});

describe("shell rows decoded in place", () => {
  it("answers the input row itself, equal to what the copying schema answers", () => {
    const input = row({ pendingBackgroundTasks: [{ taskId: "x", kind: "command" }] });
    const decoded = ShellRowSchema.parse(input);
    expect(decoded).toBe(input);
    expect(decoded).toEqual(ThreadShellSchema.parse(structuredClone(input)));
  });

  it("fills a default the row lacks, as the copying schema does", () => {
    const input = row();
    const decoded = ShellRowSchema.parse(input);
    expect(decoded.pendingBackgroundTasks).toEqual([]);
    expect(decoded).toEqual(ThreadShellSchema.parse(row()));
  });

  it("keeps the rows of a whole shell as parsed", () => {
    const rows = [row(), row({ id: "t2" })];
    const shell = ShellSnapshotSchema.parse({ snapshotSequence: 3, threads: rows, projects: [] });
    expect(shell.threads[0]).toBe(rows[0]);
    expect(shell.threads[1]).toBe(rows[1]);
    expect(shell.archivedThreads).toEqual([]);
  });

  it("refuses a bad row with the copying schema's own issues and paths", () => {
    const bad = { snapshotSequence: 3, threads: [row(), row({ title: 7, status: null })], projects: [] };
    const fast = ShellSnapshotSchema.safeParse(structuredClone(bad));
    expect(fast.success).toBe(false);
    const copying = ThreadShellSchema.safeParse(bad.threads[1]);
    expect(copying.success).toBe(false);
    if (fast.success || copying.success) return;
    expect(summarizeIssues(fast.error)).toBe(
      summarizeIssues(copying.error).replace(/(^|; )/g, "$1threads.1."),
    );
    expect(fast.error.issues.map((issue) => issue.path)).toEqual(
      copying.error.issues.map((issue) => ["threads", 1, ...issue.path]),
    );
  });

  it("refuses a row that is not an object", () => {
    expect(ShellRowSchema.safeParse(null).success).toBe(false);
    expect(ShellRowSchema.safeParse("t1").success).toBe(false);
  });
});
