import type { ShellSnapshot } from "@t3-connector/core/t3";
import type { ShellView } from "@t3-connector/mcp-tools/read-answers";
import { describe, expect, it } from "vitest";
import { environmentSince, SINCE_OVERLAP_MS, type SinceStart } from "../../src/since/since-changes.js";
import { TitleLog } from "../../src/since/title-log.js";

const T0 = Date.UTC(2026, 11, 6, 7, 0);
const iso = (ms: number) => new Date(ms).toISOString();

function row(id: string, fields: Record<string, unknown>) {
  return {
    id,
    projectId: "p1",
    title: `Thread ${id}`,
    status: "completed",
    createdAt: iso(T0 - 3_600_000),
    updatedAt: iso(T0 - 3_600_000),
    ...fields,
  };
}

function view(threads: ReturnType<typeof row>[], readAtMs: number): ShellView {
  return {
    environment: { alias: "alpha", environmentId: "env-alpha", name: "Alpha" },
    shell: {
      snapshotSequence: 1,
      threads,
      archivedThreads: [],
      projects: [{ id: "p1", title: "p" }],
    } as unknown as ShellSnapshot,
    allowedProjects: new Set(["p1"]),
    readAt: iso(readAtMs),
    source: "http",
  };
}

function cursorAfter(previous: ReturnType<typeof environmentSince>, atMs: number): SinceStart {
  return {
    kind: "cursor",
    position: { marks: new Map([["env-alpha", previous.mark]]), generatedAtMs: atMs },
  };
}

describe("a cursor's overlap", () => {
  it("reports a change whose row arrived after a newer one, and never the same change twice", () => {
    const titles = new TitleLog();
    const newer = row("a", { updatedAt: iso(T0), latestRunId: "r-a", latestRunCompletedAt: iso(T0) });
    const first = environmentSince(view([newer], T0), { kind: "time", ms: T0 - 60_000 }, titles, T0);
    expect(first.threads.map((thread) => thread.item.threadId)).toEqual(["a"]);
    expect(first.mark.ms).toBe(T0);

    // Thread b's run ended 2 s before the mark, but its row reached the server only now.
    const late = row("b", {
      updatedAt: iso(T0 - 2_000),
      latestRunId: "r-b",
      latestRunCompletedAt: iso(T0 - 2_000),
    });
    const second = environmentSince(
      view([newer, late], T0 + 1_000),
      cursorAfter(first, T0),
      titles,
      T0 + 1_000,
    );
    expect(second.threads.map((thread) => [thread.item.threadId, thread.changes.map((c) => c.kind)])).toEqual(
      [["b", ["run_ended"]]],
    );

    const third = environmentSince(
      view([newer, late], T0 + 2_000),
      cursorAfter(second, T0 + 1_000),
      titles,
      T0 + 2_000,
    );
    expect(third.threads).toEqual([]);
    expect(third.mark.seen.length).toBe(2);
  });

  it("does not look back further than the overlap", () => {
    const titles = new TitleLog();
    const older = row("c", {
      updatedAt: iso(T0 - SINCE_OVERLAP_MS - 1),
      latestRunCompletedAt: iso(T0 - SINCE_OVERLAP_MS - 1),
    });
    const start: SinceStart = {
      kind: "cursor",
      position: { marks: new Map([["env-alpha", { ms: T0, seen: [] }]]), generatedAtMs: T0 },
    };
    expect(environmentSince(view([older], T0), start, titles, T0).threads).toEqual([]);
  });

  it("reports a rename once, though the read that saw it answered after the call began", () => {
    const titles = new TitleLog();
    const named = (title: string) => row("r", { title });
    // The first call reads the title; each later call begins at `now` and its read answers 500 ms on.
    let previous = environmentSince(view([named("one")], T0), { kind: "time", ms: T0 - 60_000 }, titles, T0);
    let at = T0;
    const reported: string[] = [];
    for (const title of ["two", "three", "three", "four", "four", "four"]) {
      const began = at + 1_000;
      const next = environmentSince(
        view([named(title)], began + 500),
        { kind: "cursor", position: { marks: new Map([["env-alpha", previous.mark]]), generatedAtMs: at } },
        titles,
        began,
      );
      for (const thread of next.threads)
        for (const change of thread.changes)
          if (change.kind === "thread_renamed") reported.push(`${change.from}>${change.to}`);
      previous = next;
      at = began;
    }
    expect(reported).toEqual(["one>two", "two>three", "three>four"]);
  });
});
