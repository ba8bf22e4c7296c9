/**
 * Seeds: "demo" fills an environment with a thread in every state the connector must show;
 * `seedBulk` makes large, cheap environments for benchmarks.
 */
import type { SimEnvironmentModel } from "./model.js";
import type { ThreadSpec } from "./seed-thread.js";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

export function seedDemoInto(model: SimEnvironmentModel): void {
  const now = model.store.now();
  const projects: DemoProjects = {
    connector: model.addProject({ title: "t3-connector", workspaceRoot: "/home/sim/code/t3-connector" }).id,
    website: model.addProject({
      title: "website",
      workspaceRoot: "/home/sim/code/website",
      defaultModelSelection: { instanceId: "claudeAgent", model: "claude-fable-5" },
    }).id,
    scratch: model.addProject({ title: "scratch", workspaceRoot: "/tmp/sim-scratch" }).id,
  };
  // In the order of their `at`, oldest first.
  for (const spec of [...finishedThreads(projects, now), ...liveThreads(projects, now)])
    model.addThread(spec);
}

interface DemoProjects {
  readonly connector: string;
  readonly website: string;
  readonly scratch: string;
}

/** A fresh selection per thread: no two threads (or environments) share one object. */
const claude = () => ({
  instanceId: "claudeAgent",
  model: "claude-fable-5",
  options: [{ id: "effort", value: "high" }],
});

const iso = (ms: number) => new Date(ms).toISOString();

/** Threads whose run ended: archived, settled, snoozed, pinned, completed and failed. */
function finishedThreads({ connector, website }: DemoProjects, now: number): ThreadSpec[] {
  return [
    {
      projectId: connector,
      title: "Archived spike",
      state: "completed",
      at: now - 2 * DAY,
      archived: true,
    },
    { projectId: connector, title: "Old experiment", state: "completed", at: now - DAY, settled: true },
    {
      projectId: connector,
      title: "Snoozed and woken",
      state: "completed",
      at: now - 6 * HOUR,
      snoozedUntil: iso(now - 30 * MINUTE),
      lastVisitedAt: "updated",
    },
    {
      projectId: website,
      title: "Release checklist",
      state: "completed",
      at: now - 5 * HOUR,
      pinned: true,
      modelSelection: claude(),
    },
    {
      projectId: website,
      title: "Revisit the footer",
      state: "completed",
      at: now - 4 * HOUR,
      snoozedUntil: iso(now + DAY),
      modelSelection: claude(),
    },
    {
      projectId: connector,
      title: "Fix flaky parser test",
      state: "completed",
      at: now - 3 * HOUR,
      message: "The parser test fails one run in ten. Find out why and fix it.",
      reply: "The test depended on Map iteration order. I sorted the keys and added a regression test.",
      lastVisitedAt: "updated",
    },
    {
      projectId: connector,
      title: "Refactor auth middleware",
      state: "completed",
      at: now - 2 * HOUR,
      reply: "The middleware now validates the token once per request.",
      lastVisitedAt: iso(now - 2 * HOUR),
    },
    {
      projectId: website,
      title: "Deploy preview",
      state: "failed",
      at: now - HOUR,
      modelSelection: claude(),
    },
  ];
}

/** Threads a person may act on: a plan, an interrupted, running, waiting, queued and idle run. */
function liveThreads({ connector, website, scratch }: DemoProjects, now: number): ThreadSpec[] {
  return [
    { projectId: connector, title: "Plan: split packages", state: "proposed_plan", at: now - 40 * MINUTE },
    { projectId: scratch, title: "Interrupted build", state: "interrupted", at: now - 30 * MINUTE },
    { projectId: connector, title: "Long migration run", state: "running", at: now - 20 * MINUTE },
    {
      projectId: connector,
      title: "Choose test scope",
      state: "waiting_user_input",
      at: now - 15 * MINUTE,
    },
    {
      projectId: website,
      title: "Run the test suite?",
      state: "waiting_approval",
      at: now - 10 * MINUTE,
      modelSelection: claude(),
    },
    { projectId: connector, title: "Docs rewrite", state: "queued", at: now - 5 * MINUTE },
    { projectId: scratch, title: "Empty draft", state: "idle", at: now - MINUTE },
  ];
}

/**
 * Adds `projects` projects and `threads` threads spread over them. Every tenth thread gets a
 * completed run so shells carry realistic rows; the rest are fresh threads (one event each).
 */
export function seedBulk(model: SimEnvironmentModel, counts: { projects: number; threads: number }): void {
  const now = model.store.now();
  const projectIds: string[] = [];
  for (let p = 0; p < Math.max(1, counts.projects); p++) {
    projectIds.push(model.addProject({ title: `bulk-${p}`, workspaceRoot: `/tmp/sim-bulk/${p}` }).id);
  }
  for (let t = 0; t < counts.threads; t++) {
    model.addThread({
      projectId: projectIds[t % projectIds.length] ?? "",
      title: `Bulk thread ${t}`,
      state: t % 10 === 0 ? "completed" : "idle",
      at: now - (counts.threads - t) * 1_000,
    });
  }
}
