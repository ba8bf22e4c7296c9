/**
 * `t3_atencao` and `t3_control_plane` take their candidate rows from the thread index (per-state
 * lists, snoozing rows, counters). Their answers must equal the rules applied to every visible
 * row: checked over seeded random shells with snoozes, settles, visits and every run status.
 */
import {
  attentionThreads,
  type ControlPlaneCandidate,
  controlPlaneLists,
  countByState,
} from "@t3-connector/core/state";
import type { ShellSnapshot, ThreadShell } from "@t3-connector/core/t3";
import {
  attentionRows,
  cachedThreadSummary,
  controlPlaneRows,
  projectsById,
  type ShellView,
  stateRow,
  threadItems,
  visibleThreads,
} from "@t3-connector/mcp-tools/read-answers";
import { seededRandom } from "@t3-connector/test-support/seeded-random";
import { describe, expect, it } from "vitest";

const NOW = Date.parse("2026-01-01T00:05:00.000Z");
const STATUSES = ["idle", "completed", "running", "failed", "cancelled", "interrupted", "waiting"];

const at = (minute: number) => `2026-01-01T00:${String(minute).padStart(2, "0")}:00.000Z`;

function row(next: () => number, id: string): ThreadShell {
  const status = STATUSES[Math.floor(next() * STATUSES.length)] as string;
  const ran = status !== "idle" || next() < 0.3;
  return {
    id,
    projectId: `p${1 + Math.floor(next() * 3)}`,
    title: id,
    status,
    latestRunId: ran ? `run-${id}` : null,
    pendingRuntimeRequest: next() < 0.1 ? { id: `req-${id}`, kind: "approval" } : null,
    pendingBackgroundTasks: next() < 0.1 ? [{ taskId: "bg" }] : [],
    createdAt: at(0),
    updatedAt: at(Math.floor(next() * 9)),
    latestRunCompletedAt: at(Math.floor(next() * 9)),
    archivedAt: next() < 0.1 ? at(0) : null,
    settledAt: next() < 0.3 ? at(1) : null,
    snoozedAt: at(1),
    snoozedUntil: next() < 0.4 ? at(Math.floor(next() * 10)) : null,
    lastVisitedAt: next() < 0.5 ? at(Math.floor(next() * 10)) : null,
  } as ThreadShell;
}

function view(threads: ThreadShell[], allowed: string[]): ShellView {
  const shell = {
    schemaVersion: 2,
    snapshotSequence: 1,
    threads,
    archivedThreads: [],
    projects: ["p1", "p2", "p3"].map((id) => ({ id, title: id })),
  } as ShellSnapshot;
  return {
    environment: { alias: "alpha", environmentId: "env-a", name: null },
    shell,
    allowedProjects: new Set(allowed),
    readAt: new Date(NOW).toISOString(),
    source: "http",
  };
}

function candidates(v: ShellView, threads: readonly ThreadShell[]): ControlPlaneCandidate[] {
  const projects = projectsById(v);
  return threads.map((thread) => ({
    environment: v.environment,
    thread: stateRow(thread),
    summary: cachedThreadSummary(thread, NOW, projects.get(thread.projectId)),
  }));
}

describe("attention and control plane from the thread index", () => {
  for (const seed of [21, 22, 23, 24, 25]) {
    it(`answer what the rules give over every visible row (seed ${seed})`, () => {
      const next = seededRandom(seed);
      const v = view(
        Array.from({ length: 150 }, (_, i) => row(next, `t${i}`)),
        seed % 2 === 0 ? ["p1", "p2", "p3"] : ["p1", "p3"],
      );
      const everyRow = visibleThreads(v);

      const fullAttention = attentionThreads(threadItems(v, everyRow, NOW));
      expect(attentionThreads(threadItems(v, attentionRows(v), NOW))).toEqual(fullAttention);

      const indexed = controlPlaneRows(v);
      const full = candidates(v, everyRow);
      for (const limit of [3, 100]) {
        expect(controlPlaneLists(candidates(v, indexed.rows), { now: NOW, limit })).toEqual(
          controlPlaneLists(full, { now: NOW, limit }),
        );
      }
      expect(indexed.byState).toEqual(countByState(full.map((candidate) => candidate.summary)));
      expect(indexed.visible).toBe(everyRow.length);
      // The lists are not trivially empty in these shells.
      const lists = controlPlaneLists(full, { now: NOW, limit: 100 });
      expect(lists.ready.total + lists.running.total + lists.needsIntervention.total).toBeGreaterThan(0);
    });
  }
});
