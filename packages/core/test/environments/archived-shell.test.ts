import { describe, expect, it } from "vitest";
import { withArchivedThreads } from "../../src/environments/index.js";
import type { ArchivedShellSnapshot, ShellSnapshot, ThreadShell } from "../../src/t3/index.js";

const row = (id: string, projectId: string, archivedAt: string | null = null) =>
  ({
    id,
    projectId,
    title: id,
    status: "idle",
    createdAt: "2026-01-01T00:00:00.000Z",
    updatedAt: "2026-01-01T00:00:00.000Z",
    archivedAt,
    pendingBackgroundTasks: [],
  }) as ThreadShell;
const project = (id: string) => ({ id, title: id, workspaceRoot: `/w/${id}` });

describe("adding the archived shell snapshot to a shell", () => {
  const shell: ShellSnapshot = {
    schemaVersion: 2,
    snapshotSequence: 10,
    threads: [row("a", "p1"), row("b", "p1")],
    archivedThreads: [],
    projects: [project("p1")],
  };
  const archived: ArchivedShellSnapshot = {
    schemaVersion: 2,
    snapshotSequence: 12,
    threads: [row("b", "p1", "2026-01-02T00:00:00.000Z"), row("c", "p2", "2026-01-02T00:00:00.000Z")],
    projects: [project("p1"), project("p2")],
  };

  it("lists the archived rows, which win over an older active row of the same thread", () => {
    const merged = withArchivedThreads(shell, archived);
    expect(merged.threads.map((thread) => thread.id)).toEqual(["a"]);
    expect(merged.archivedThreads.map((thread) => [thread.id, Boolean(thread.archivedAt)])).toEqual([
      ["b", true],
      ["c", true],
    ]);
  });

  it("adds only the projects the shell lacks, and leaves the shell it was given unchanged", () => {
    const merged = withArchivedThreads(shell, archived);
    expect(merged.projects.map((p) => p.id)).toEqual(["p1", "p2"]);
    expect(merged.snapshotSequence).toBe(10);
    expect(shell.threads).toHaveLength(2);
    expect(shell.archivedThreads).toEqual([]);
  });
});
