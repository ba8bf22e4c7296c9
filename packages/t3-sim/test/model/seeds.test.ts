/** The demo seed shows every state the connector renders; bulk seeding scales to 10,000 threads. */
import { describe, expect, it } from "vitest";
import { seedBulk } from "../../src/model/index.js";
import { buildArchivedShellSnapshot } from "../../src/model/projection.js";
import { dispatch, type Json, makeModel, shellOf } from "./helpers.js";

function demo() {
  const made = makeModel({ seed: "demo" });
  const shell = (made.model.httpShell() as { body: Json }).body;
  // Protocol 2 keeps archived threads out of the shell: they come from the archived snapshot.
  const archived = buildArchivedShellSnapshot(made.model.store) as Json;
  const byTitle = (title: string): Json =>
    [...shell.threads, ...archived.threads].find((t: Json) => t.title === title) ??
    expect.fail(`no thread ${title}`);
  return { ...made, shell, archived, byTitle };
}

describe("the demo seed", () => {
  it("has 2-3 projects and a thread in every state, without recording Json command", () => {
    const { model, shell, archived, byTitle } = demo();
    expect(shell.projects.length).toBeGreaterThanOrEqual(2);
    expect(model.receivedCommands).toHaveLength(0);
    expect(byTitle("Fix flaky parser test")).toMatchObject({
      status: "completed",
      latestVisibleMessage: { role: "assistant" },
    });
    expect(byTitle("Long migration run")).toMatchObject({ status: "running", activityRunStatus: "running" });
    expect(byTitle("Choose test scope").pendingRuntimeRequest.kind).toBe("user_input");
    expect(byTitle("Run the test suite?").pendingRuntimeRequest.kind).toBe("command");
    expect(byTitle("Deploy preview")).toMatchObject({ status: "failed", lastError: expect.any(String) });
    const queued = byTitle("Docs rewrite");
    expect([queued.status, queued.activityRunStatus]).toEqual(["queued", "running"]);
    expect(queued.activeRunId).not.toBe(queued.latestRunId);
    expect(byTitle("Plan: split packages").hasActionableProposedPlan).toBe(true);
    expect(byTitle("Interrupted build").status).toBe("interrupted");
    expect(byTitle("Empty draft")).toMatchObject({ status: "idle", latestRunId: null });
    expect(byTitle("Release checklist").pinnedAt).not.toBeNull();
    expect(byTitle("Old experiment").settledOverride).toBe("settled");
    expect(shell.archivedThreads).toEqual([]);
    expect(archived.threads.map((t: Json) => t.title)).toEqual(["Archived spike"]);
  });

  it("has a snoozed thread, a woken one, and read versus unread threads", () => {
    const { clock, byTitle } = demo();
    const now = clock.now();
    const snoozed = byTitle("Revisit the footer");
    expect(Date.parse(snoozed.snoozedUntil)).toBeGreaterThan(now);
    const woken = byTitle("Snoozed and woken");
    expect(Date.parse(woken.snoozedUntil)).toBeLessThanOrEqual(now);
    expect(Date.parse(woken.lastVisitedAt)).toBeLessThan(Date.parse(woken.snoozedUntil));
    expect(Date.parse(woken.snoozedAt)).toBeLessThan(Date.parse(woken.snoozedUntil));
    const read = byTitle("Fix flaky parser test");
    expect(read.lastVisitedAt).toBe(read.updatedAt);
    const unread = byTitle("Refactor auth middleware");
    expect(Date.parse(unread.lastVisitedAt)).toBeLessThan(Date.parse(unread.updatedAt));
  });

  it("keeps its waiting threads live: answering the seeded question completes the run", async () => {
    const { model, clock, byTitle } = demo();
    const thread = byTitle("Choose test scope");
    const outcome = await dispatch(model, {
      type: "runtime-request.respond",
      threadId: thread.id,
      requestId: thread.pendingRuntimeRequest.id,
      answers: { scope: "tests" },
    });
    expect(outcome.kind).toBe("success");
    clock.advance(1_000);
    expect(shellOf(model, thread.id).status).toBe("completed");
  });
});

describe("seedBulk", () => {
  it("builds 10,000 threads over several projects", () => {
    const { model } = makeModel();
    seedBulk(model, { projects: 20, threads: 10_000 });
    const shell = (model.httpShell() as { body: Json }).body;
    expect(shell.threads).toHaveLength(10_000);
    expect(shell.projects).toHaveLength(20);
    expect(shell.threads.filter((t: Json) => t.status === "completed")).toHaveLength(1_000);
  });
});
