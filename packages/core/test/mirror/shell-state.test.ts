import { describe, expect, it } from "vitest";
import { ShellState } from "../../src/mirror/index.js";
import { parseShellStreamItem, type ShellStreamItem } from "../../src/t3/index.js";

// Frames as upstream `apps/server/src/orchestration-v2/ShellStream.ts` builds them: the
// authoritative snapshot carries no `resolvedRepositoryIdentityRoots`; every metadata-only frame
// (initial pair's second frame, resume opening frame, enrichment refresh) carries them, with
// `threads: []`, `archivedThreads: []`, only the resolved projects and the high-water sequence.
const row = (id: string, title = id) => ({
  id,
  projectId: "p1",
  title,
  status: "idle",
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:00.000Z",
  archivedAt: null,
});
const project = (id: string, workspaceRoot: string, repositoryIdentity: unknown = null) => ({
  id,
  title: id,
  workspaceRoot,
  repositoryIdentity,
});
const identity = { canonicalKey: "github.com/o/r" };

function item(value: unknown): ShellStreamItem {
  return parseShellStreamItem(value);
}
function authoritative(sequence: number, threads: unknown[], projects: unknown[]) {
  return item({
    kind: "snapshot",
    snapshot: { schemaVersion: 2, snapshotSequence: sequence, threads, archivedThreads: [], projects },
  });
}
function metadataOnly(sequence: number, projects: unknown[], roots: string[]) {
  return item({
    kind: "snapshot",
    snapshot: { schemaVersion: 2, snapshotSequence: sequence, threads: [], archivedThreads: [], projects },
    resolvedRepositoryIdentityRoots: roots,
  });
}
const ids = (state: ShellState) => state.snapshot().threads.map((thread) => thread.id);

describe("shell state follows upstream's snapshot semantics", () => {
  it("keeps every thread when a resume opens with a metadata-only snapshot, then applies the replay", () => {
    const state = new ShellState();
    state.apply(authoritative(10, [row("a"), row("b")], [project("p1", "/w")]));
    const change = state.apply(metadataOnly(14, [project("p1", "/w", identity)], ["/w"]));
    expect(change?.kind).toBe("roots");
    expect(ids(state)).toEqual(["a", "b"]);
    expect(state.snapshot().projects[0]?.repositoryIdentity).toEqual(identity);
    // The metadata frame's sequence is not applied: the replayed items up to it still count.
    expect(state.sequence).toBe(10);
    state.apply(item({ kind: "thread.updated", sequence: 12, location: "active", thread: row("c") }));
    expect(ids(state)).toEqual(["a", "b", "c"]);
    expect(state.sequence).toBe(12);
  });

  it("keeps threads and projects on a runtime enrichment refresh, patching only identities it resolved", () => {
    const state = new ShellState();
    state.apply(authoritative(5, [row("a")], [project("p1", "/w", identity), project("p2", "/x")]));
    // `/w` resolved to null (the frame is exact for listed roots); `/x` is not listed.
    state.apply(metadataOnly(9, [project("p1", "/w", null), project("p2", "/x", identity)], ["/w"]));
    const projects = state.snapshot().projects;
    expect(projects.map((p) => [p.id, p.repositoryIdentity])).toEqual([
      ["p1", null],
      ["p2", identity], // an unknown identity is filled in even when the root is not listed
    ]);
    expect(ids(state)).toEqual(["a"]);
    // A project only the refresh names is not added: project changes come as project items.
    state.apply(metadataOnly(9, [project("p3", "/y", identity)], ["/y"]));
    expect(state.snapshot().projects.map((p) => p.id)).toEqual(["p1", "p2"]);
  });

  it("replaces the threads on an authoritative snapshot (first subscribe, or when resume is impossible)", () => {
    const state = new ShellState();
    state.apply(authoritative(5, [row("a"), row("b")], [project("p1", "/w")]));
    state.apply(authoritative(40, [row("b"), row("d")], [project("p1", "/w")]));
    expect(ids(state)).toEqual(["b", "d"]);
    expect(state.sequence).toBe(40);
  });

  it("takes a metadata-marked snapshot whole when it is the first one (nothing held yet to keep)", () => {
    const state = new ShellState();
    state.apply(metadataOnly(3, [project("p1", "/w")], ["/w"]));
    expect(state.hasSnapshot).toBe(true);
    expect(state.snapshot().projects.map((p) => p.id)).toEqual(["p1"]);
  });

  it("removes a thread from the active rows on thread.removed (how current T3 reports an archive)", () => {
    const state = new ShellState();
    state.apply(authoritative(5, [row("a"), row("b")], [project("p1", "/w")]));
    state.apply(item({ kind: "thread.removed", sequence: 6, location: "active", threadId: "a" }));
    expect(ids(state)).toEqual(["b"]);
    expect(state.snapshot().archivedThreads).toEqual([]);
  });
});
