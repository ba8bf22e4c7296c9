/**
 * The ordered thread index a shell mirror keeps per stream item must always equal the index
 * recomputed from scratch over the same rows: checked over seeded random sequences of the
 * simulator's shell items (inserts, updates that reorder, archive/unarchive, deletes, removals).
 */

import { seededRandom } from "@t3-connector/test-support/seeded-random";
import { describe, expect, it } from "vitest";
import { ShellState, ThreadListIndex } from "../../src/mirror/index.js";
import { parseShellStreamItem, ThreadShellSchema } from "../../src/t3/index.js";

const PROJECTS = ["p1", "p2", "p3"];
const STATUSES = ["idle", "completed", "running", "failed", "interrupted"];

function row(next: () => number, id: string) {
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)] as T;
  const status = pick(STATUSES);
  const ran = status !== "idle" || next() < 0.3;
  // Few distinct instants, so equal updatedAt values (ties broken by id) are common; some unparsable.
  const minute = Math.floor(next() * 6);
  const updatedAt = next() < 0.08 ? "not a date" : `2026-01-01T00:0${minute}:00.000Z`;
  return {
    id,
    projectId: pick(PROJECTS),
    title: `thread ${id}`,
    status,
    latestRunId: ran ? `run-${id}` : null,
    createdAt: "2026-01-01T00:00:00.000Z",
    updatedAt,
    archivedAt: next() < 0.1 ? "2026-01-01T00:00:00.000Z" : null,
    settledAt: next() < 0.3 ? "2026-01-01T00:00:00.000Z" : null,
    snoozedUntil: next() < 0.2 ? `2026-01-01T00:0${Math.floor(next() * 9)}:00.000Z` : null,
    deletedAt: next() < 0.05 ? "2026-01-01T00:00:00.000Z" : null,
  };
}

function summary(index: ThreadListIndex) {
  return index
    .entries()
    .map(
      (entry) =>
        `${entry.id}|${entry.projectId}|${entry.updatedMs}|${entry.state}|${entry.settled}|${entry.snoozes}`,
    );
}

const everything = { allowedProjects: new Set(PROJECTS), includeNoRun: true };
const filters = [
  everything,
  { allowedProjects: new Set(PROJECTS) },
  { allowedProjects: new Set(["p1", "p3"]) },
  { allowedProjects: new Set(PROJECTS), projectId: "p2" },
  { allowedProjects: new Set(PROJECTS), state: "completed" as const },
  { allowedProjects: new Set(["p2"]), state: "no_run" as const },
];

describe("the ordered thread index of a shell mirror", () => {
  for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
    it(`stays equal to a full recompute over a random sequence of shell items (seed ${seed})`, () => {
      const next = seededRandom(seed);
      const state = new ShellState();
      const initial = Array.from({ length: 40 }, (_, i) => row(next, `t${i}`));
      state.apply(
        parseShellStreamItem({
          kind: "snapshot",
          snapshot: {
            schemaVersion: 2,
            snapshotSequence: 1,
            threads: initial,
            archivedThreads: [],
            projects: [],
          },
        }),
      );
      const live = state.threadIndex(); // built now, maintained from here on
      let sequence = 1;
      for (let step = 0; step < 300; step++) {
        sequence += 1;
        const id = `t${Math.floor(next() * 60)}`; // existing rows and new ones
        const roll = next();
        const item =
          roll < 0.75
            ? {
                kind: "thread.updated",
                sequence,
                location: next() < 0.85 ? "active" : "archive",
                thread: row(next, id),
              }
            : { kind: "thread.removed", sequence, threadId: id };
        state.apply(parseShellStreamItem(item));
        expect(state.threadIndex()).toBe(live);
        if (step % 25 === 0 || step === 299) {
          const recomputed = ThreadListIndex.of(state.snapshot().threads);
          expect(summary(live)).toEqual(summary(recomputed));
          // The per-state lists are checked against a pass over every entry, not only each other.
          const everyEntry = recomputed.entries();
          expect([...live.snoozing(everything)].map((entry) => entry.id)).toEqual(
            everyEntry.filter((entry) => entry.snoozes).map((entry) => entry.id),
          );
          for (const filter of filters) {
            expect(live.count(filter), JSON.stringify([...filter.allowedProjects])).toEqual(
              recomputed.count(filter),
            );
            expect([...live.walk(filter)].map((entry) => entry.id)).toEqual(
              [...recomputed.walk(filter)].map((entry) => entry.id),
            );
            expect([...live.snoozing(filter)].map((entry) => entry.id)).toEqual(
              [...recomputed.snoozing(filter)].map((entry) => entry.id),
            );
            expect(live.countByState(filter)).toEqual(recomputed.countByState(filter));
            for (const state of ["no_run", "completed", "running", "failed", "cancelled"] as const) {
              const inState = [...live.inState(state, filter)];
              expect(inState.map((entry) => entry.id)).toEqual(
                [...recomputed.walk({ ...filter, state })].map((entry) => entry.id),
              );
              expect(inState.every((entry) => entry.state === state)).toBe(true);
            }
          }
        }
      }
    });
  }

  it("holds only listable active rows, newest first, undated last, ties by id", () => {
    expect(ThreadListIndex.of([]).size).toBe(0);
    const rows = ["b", "a", "c", "d", "e"].map((id) => ({
      id,
      projectId: "p1",
      title: id,
      status: "idle" as const,
      createdAt: "x",
      updatedAt: id === "c" ? "garbage" : id === "d" ? "2026-02-01T00:00:00Z" : "2026-01-01T00:00:00Z",
      ...(id === "e" ? { deletedAt: "2026-03-01T00:00:00Z" } : {}),
    }));
    const built = ThreadListIndex.of(rows.map((row) => ThreadShellSchema.parse(row)));
    expect(built.entries().map((entry) => entry.id)).toEqual(["d", "a", "b", "c"]);
    expect(built.count({ allowedProjects: new Set(["p1"]) })).toEqual({ matching: 0, hiddenNoRun: 4 });
    built.remove("a");
    built.upsert(ThreadShellSchema.parse({ ...rows[0], id: "b", updatedAt: "2026-04-01T00:00:00Z" }));
    expect(built.entries().map((entry) => entry.id)).toEqual(["b", "d", "c"]);
  });
});
