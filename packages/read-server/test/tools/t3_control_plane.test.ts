import type { SimReadSetup } from "@t3-connector/test-support/sim-context";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { t3ControlPlaneTool } from "../../src/tools/t3_control_plane.js";
import {
  ALPHA_ID,
  BETA_ID,
  demoProjectIds,
  type Item,
  invalidInput,
  publishBackgroundTask,
  startTwoEnvironments,
  threadIdByTitle,
} from "./listing-support.js";

const TOOL = "t3_control_plane";
const definitions = [t3ControlPlaneTool];

interface List {
  total: number;
  returned: number;
  truncated: boolean;
  threads: Item[];
}

const titles = (list: unknown, alias: string) =>
  (list as List).threads
    .filter((t) => t.environment.alias === alias)
    .map((t) => String(t.title))
    .sort();

function expectNewestFirst(list: unknown): void {
  const stamps = (list as List).threads.map((t) => Date.parse(String(t.updatedAt)));
  expect(stamps).toEqual([...stamps].sort((a, b) => b - a));
}

const DEMO_BY_STATE = {
  running: 2,
  needs_intervention: 3,
  completed: 6,
  failed: 1,
  cancelled: 1,
  no_run: 1,
  unknown: 0,
};

describe("t3_control_plane over two environments", () => {
  let setup: SimReadSetup;
  beforeEach(async () => {
    setup = await startTwoEnvironments(definitions);
  });
  afterEach(async () => {
    await setup.close();
  });

  it("splits every environment's visible threads into intervention, running and ready lists", async () => {
    const result = await setup.call(TOOL, {});
    expect(result).toMatchObject({
      contractVersion: 1,
      scope: "all_environments",
      complete: true,
      coherence: { mode: "per_environment", note: expect.any(String) },
      environmentFailures: [],
      limit: 20,
    });
    expect(result.incompleteReason).toBeUndefined();
    expect(result.environment).toBeUndefined();
    expect(Number.isNaN(Date.parse(String(result.generatedAt)))).toBe(false);
    const queried = result.queriedEnvironments as Array<Record<string, unknown>>;
    expect(queried.map((q) => q.alias)).toEqual(["alpha", "beta"]);
    for (const entry of queried) {
      expect(entry).toMatchObject({ visibleThreads: 14, found: 14, byState: DEMO_BY_STATE });
      expect(typeof entry.snapshotSequence).toBe("number");
      expect(typeof entry.readAt).toBe("string");
    }
    expect(result.needsIntervention).toMatchObject({ total: 6, returned: 6, truncated: false });
    expect(result.running).toMatchObject({ total: 4, returned: 4, truncated: false });
    expect(result.ready).toMatchObject({ total: 12, returned: 12, truncated: false });
    for (const alias of ["alpha", "beta"]) {
      expect(titles(result.needsIntervention, alias)).toEqual([
        "Choose test scope",
        "Plan: split packages",
        "Run the test suite?",
      ]);
      expect(titles(result.running, alias)).toEqual(["Docs rewrite", "Long migration run"]);
      expect(titles(result.ready, alias)).toEqual([
        "Deploy preview",
        "Fix flaky parser test",
        "Interrupted build",
        "Refactor auth middleware",
        "Release checklist",
        "Snoozed and woken",
      ]);
    }
    for (const list of [result.needsIntervention, result.running, result.ready]) expectNewestFirst(list);
  });

  it("gives ready items their reasons and blockers, and each item the t3_thread call that reads it", async () => {
    const result = await setup.call(TOOL, { environment: "alpha" });
    expect(result).toMatchObject({
      scope: "environment",
      environment: { alias: "alpha", environmentId: ALPHA_ID },
    });
    const ready = (result.ready as List).threads;
    const byTitle = (title: string) => ready.find((t) => t.title === title);
    expect(byTitle("Snoozed and woken")).toMatchObject({
      readyReasons: ["latest_run_completed_unsettled", "woke"],
      blockers: [],
      actionableNow: true,
      woke: true,
    });
    expect(byTitle("Snoozed and woken")?.snoozedUntil).toBeNull();
    expect(byTitle("Deploy preview")).toMatchObject({
      readyReasons: ["latest_run_failed_unsettled"],
      state: "failed",
    });
    expect(byTitle("Interrupted build")).toMatchObject({ readyReasons: ["latest_run_cancelled_unsettled"] });
    // The change summary of the latest checkpoint: the simulated run appended a line to one file.
    expect(byTitle("Snoozed and woken")?.changes).toMatchObject({
      files: 1,
      additions: 1,
      line: "1 file changed, +1 -0",
    });
    // A failed run left no checkpoint: nothing to summarise.
    expect(byTitle("Deploy preview")?.changes).toBeNull();
    const first = ready[0];
    expect(first?.next).toEqual({
      tool: "t3_thread",
      input: { environment: "alpha", threadId: first?.threadId },
    });
    expect(first?.environment).toEqual({ alias: "alpha", environmentId: ALPHA_ID, name: "Alpha laptop" });

    const question = (result.needsIntervention as List).threads.find((t) => t.title === "Choose test scope");
    expect(question).toMatchObject({
      pendingRequest: {
        requestId: expect.any(String),
        kind: "user_input",
        reason: "question waiting for an answer",
        since: expect.any(String),
        contentInThreadRead: true,
      },
    });
    expect(question?.readyReasons).toBeUndefined();
    const running = (result.running as List).threads.find((t) => t.title === "Long migration run");
    expect(running).toMatchObject({
      activeRun: { runId: expect.any(String), status: "running" },
      pendingRequest: null,
    });
    // Snoozed, settled and never-run threads are only counted.
    const listed = [result.needsIntervention, result.running, result.ready].flatMap(
      (l) => (l as List).threads,
    );
    for (const title of ["Revisit the footer", "Old experiment", "Empty draft", "Archived spike"]) {
      expect(listed.some((t) => t.title === title)).toBe(false);
    }
  });

  it("blocks a ready thread while the shell reports background work", async () => {
    const beta = setup.sim.environment("beta");
    const threadId = threadIdByTitle(beta, "Release checklist");
    publishBackgroundTask(beta, threadId, {
      taskId: "task-1",
      description: "indexing the repo",
      taskType: "bash",
    });
    const result = await setup.call(TOOL, { environment: "beta" });
    const ready = (result.ready as List).threads;
    expect(ready.find((t) => t.threadId === threadId)).toMatchObject({
      state: "completed",
      readyReasons: ["latest_run_completed_unsettled"],
      blockers: ["background_work_pending"],
      actionableNow: false,
      backgroundTasks: [{ kind: "bash", taskId: "task-1", description: "indexing the repo" }],
    });
    const others = ready.filter((t) => t.threadId !== threadId);
    expect(others.length).toBe(5);
    expect(others.every((t) => t.actionableNow === true)).toBe(true);
  });

  it("cuts each list at limit and says how much was left out", async () => {
    const result = await setup.call(TOOL, { limit: 2 });
    expect(result.limit).toBe(2);
    expect(result.needsIntervention).toMatchObject({ total: 6, returned: 2, truncated: true });
    expect(result.running).toMatchObject({ total: 4, returned: 2, truncated: true });
    expect(result.ready).toMatchObject({ total: 12, returned: 2, truncated: true });
  });

  it("refuses an unknown environment, legacy keys and an out-of-range limit", async () => {
    expect(await setup.callError(TOOL, { environment: "omega" })).toMatch(
      /^environment_unknown: .*alpha, beta/,
    );
    for (const args of [
      { ambiente: "alpha" },
      { limite: 3 },
      { busca: "x" },
      { estado: "running" },
      { limit: 101 },
      { cursor: "x" },
    ]) {
      expect((await invalidInput(setup, TOOL, args)).code).toBe("invalid_input");
    }
  });

  it("says it is not a global view when an environment fails, and keeps the other's lists", async () => {
    setup.sim.environment("alpha").faults.set({ httpStatus: 500 });
    const result = await setup.call(TOOL, {});
    expect(result.complete).toBe(false);
    expect(String(result.incompleteReason)).toContain("alpha (http_500)");
    expect(result.environmentFailures).toEqual([
      { alias: "alpha", environmentId: ALPHA_ID, code: "http_500", reason: expect.any(String) },
    ]);
    expect((result.queriedEnvironments as Item[]).map((q) => q.environmentId)).toEqual([BETA_ID]);
    expect(result.ready).toMatchObject({ total: 6 });
    expect(titles(result.ready, "alpha")).toEqual([]);
  });
});

describe("t3_control_plane and the project ACL", () => {
  let setup: SimReadSetup;
  beforeEach(async () => {
    const alpha = (await demoProjectIds()).alpha ?? {};
    setup = await startTwoEnvironments(definitions, { allowedProjects: { alpha: [alpha.website ?? ""] } });
  });
  afterEach(async () => {
    await setup.close();
  });

  it("counts and lists only the threads of allowed projects", async () => {
    const result = await setup.call(TOOL, { environment: "alpha" });
    const [entry] = result.queriedEnvironments as Array<Record<string, unknown>>;
    expect(entry).toMatchObject({
      visibleThreads: 4,
      byState: {
        running: 0,
        needs_intervention: 1,
        completed: 2,
        failed: 1,
        cancelled: 0,
        no_run: 0,
        unknown: 0,
      },
    });
    expect(titles(result.needsIntervention, "alpha")).toEqual(["Run the test suite?"]);
    expect(titles(result.ready, "alpha")).toEqual(["Deploy preview", "Release checklist"]);
  });
});
