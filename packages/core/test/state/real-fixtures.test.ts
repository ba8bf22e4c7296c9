import { readFileSync } from "node:fs";
import path from "node:path";
import { REAL_FIXTURES_DIR } from "@t3-connector/test-support/real-fixtures";
import { describe, expect, it } from "vitest";
import {
  attentionThreads,
  type ControlPlaneCandidate,
  controlPlaneLists,
  countByState,
  isListableThread,
  isSnoozed,
  type ProjectInput,
  recentMessages,
  type ShellThreadInput,
  type ThreadProjectionInput,
  threadRead,
  threadSummary,
} from "../../src/state/index.js";

// The real captures of a 0.0.31 server (fixtures/t3-0.0.31).
const fixtures = REAL_FIXTURES_DIR;

interface ShellBody {
  threads: ShellThreadInput[];
  archivedThreads: ShellThreadInput[];
  projects: ProjectInput[];
}

function body<T>(file: string): T {
  const exchange = JSON.parse(readFileSync(path.join(fixtures, file), "utf8")) as { response: { body: T } };
  return exchange.response.body;
}

const IDS = {
  probe: "9d935d8b-367f-4afb-b106-aa6f9cf0855b",
  t1: "0798fcf8-49d7-4821-812e-7cdce591eed0",
  t2: "b7140cce-94f5-4f8b-82d5-5f8f67f9fbfa",
  t3: "a288f2b9-5249-4ef1-a025-7e807cf133e9",
  t4: "90df6ff9-256e-482c-b223-2c5ed3fdc259",
  t5: "5952c503-cead-4de6-bf0c-e3295bd9044b",
  t6: "a9286777-78cd-488b-a7c7-871c3a96763f",
  launched: "4299505b-aaa5-4cde-9efe-188b6b02b991",
} as const;
const T1_RUN = `run:thread:${IDS.t1}:ordinal:1`;
const T6_RUN = `run:thread:${IDS.t6}:ordinal:1`;

/** Shortly after the capture: T3's 24 h snooze is still running. */
const AT_CAPTURE = Date.parse("2026-12-02T13:03:00.000Z");
/** Two days later: the snooze has passed. */
const LATER = Date.parse("2026-12-04T13:00:00.000Z");

function rowsOf(shell: ShellBody): Map<string, ShellThreadInput> {
  return new Map([...shell.threads, ...shell.archivedThreads].map((row) => [row.id ?? "", row]));
}

function row(rows: Map<string, ShellThreadInput>, id: string): ShellThreadInput {
  const found = rows.get(id);
  if (!found) throw new Error(`fixture row ${id} missing`);
  return found;
}

function summaries(shell: ShellBody, now: number) {
  const projects = new Map(shell.projects.map((project) => [project.id, project]));
  return new Map(
    [...shell.threads, ...shell.archivedThreads].map((thread) => [
      thread.id ?? "",
      threadSummary(thread, { now, project: projects.get(thread.projectId) }),
    ]),
  );
}

describe("the projection over the real shell after setup (40)", () => {
  const shell = body<ShellBody>("40-http-shell-admin.json");
  const rows = rowsOf(shell);
  const byId = summaries(shell, AT_CAPTURE);
  const at = (id: string) => byId.get(id);

  it.each([
    [
      "T6: the run stuck in starting is running",
      IDS.t6,
      { state: "running", stateSource: "active_run", statusRun: "starting", runId: T6_RUN },
    ],
    [
      "T1: the interrupted run reads cancelled",
      IDS.t1,
      { state: "cancelled", stateSource: "latest_run", statusRun: "interrupted", runId: T1_RUN },
    ],
    ["T2: settled, no run", IDS.t2, { state: "no_run", stateSource: "no_run", settled: true, runId: null }],
    ["T3: snoozed, no run", IDS.t3, { state: "no_run", settled: false, woke: false, wokeAt: null }],
    ["T4: pinned, no run", IDS.t4, { state: "no_run", settled: false }],
    ["T5: archived, no run", IDS.t5, { state: "no_run" }],
    ["the probe thread: no run", IDS.probe, { state: "no_run" }],
  ])("%s", (_name, id, expected) => {
    expect(at(id)).toMatchObject(expected);
  });

  it("decides the woke marker for every row: this server sends the snooze and visited fields", () => {
    for (const summary of byId.values()) expect(summary.woke).not.toBeNull();
  });

  it("names the project and its workspace as directory", () => {
    expect(at(IDS.t1)).toMatchObject({
      project: { projectId: "d21e26bb-47ea-4b08-a81f-0abce1f8f482", title: "fixtures" },
      directory: "/home/dev/code/fixtures",
      model: { model: "gpt-5.6-sol-mini", instanceId: "codex", effort: null },
      runtimeMode: "full-access",
    });
  });

  it("T3 is snoozed at capture time and woke two days later (never visited)", () => {
    expect(isSnoozed(row(rows, IDS.t3), AT_CAPTURE)).toBe(true);
    expect(isSnoozed(row(rows, IDS.t3), LATER)).toBe(false);
    expect(threadSummary(row(rows, IDS.t3), { now: LATER })).toMatchObject({
      woke: true,
      wokeAt: "2026-12-03T13:01:50.660Z",
    });
  });

  it("T5 is archived: not listable; every other row is", () => {
    expect(isListableThread(row(rows, IDS.t5))).toBe(false);
    expect(shell.threads.every(isListableThread)).toBe(true);
  });

  it("the control plane lists T6 as running and T1 as ready; nothing needs intervention", () => {
    const candidates: ControlPlaneCandidate[] = shell.threads.filter(isListableThread).map((thread) => ({
      environment: { alias: "local", environmentId: "8a83a2ed-157d-4eaa-96d9-b12040a490d5", name: null },
      thread,
      summary: threadSummary(thread, { now: AT_CAPTURE }),
    }));
    const lists = controlPlaneLists(candidates, { now: AT_CAPTURE });
    expect(lists.needsIntervention.total).toBe(0);
    expect(lists.running.threads.map((t) => t.threadId)).toEqual([IDS.t6]);
    expect(lists.running.threads[0]?.activeRun).toEqual({ runId: T6_RUN, status: "starting" });
    expect(lists.ready.threads.map((t) => t.threadId)).toEqual([IDS.t1]);
    expect(lists.ready.threads[0]).toMatchObject({
      readyReasons: ["latest_run_cancelled_unsettled"],
      actionableNow: true,
    });
    expect(countByState(candidates.map((c) => c.summary))).toEqual({
      running: 1,
      needs_intervention: 0,
      completed: 0,
      failed: 0,
      cancelled: 1,
      no_run: 4,
      unknown: 0,
    });
    expect(attentionThreads(candidates.map((c) => c.summary))).toEqual([]);
  });
});

describe("the projection over the real final shell (90)", () => {
  const shell = body<ShellBody>("90-http-shell-final.json");
  const byId = summaries(shell, LATER);

  it("T3 was settled while snoozed: it keeps snoozedUntil but is not woke", () => {
    expect(byId.get(IDS.t3)).toMatchObject({
      settled: true,
      woke: false,
      wokeAt: "2026-12-03T13:01:50.660Z",
    });
  });

  it("T6 is still starting 40 s later: still running", () => {
    expect(byId.get(IDS.t6)).toMatchObject({ state: "running", statusRun: "starting" });
  });

  it("T2 and T4 are settled; the launched thread has no run", () => {
    expect(byId.get(IDS.t2)?.settled).toBe(true);
    expect(byId.get(IDS.t4)?.settled).toBe(true);
    expect(byId.get(IDS.launched)).toMatchObject({ state: "no_run", settled: false });
  });
});

describe("thread reads over real thread details (42, 46, 91)", () => {
  const final = rowsOf(body<ShellBody>("90-http-shell-final.json"));
  const projectionOf = (file: string) => body<{ projection: ThreadProjectionInput }>(file).projection;

  it("T1 after the interrupt: cancelled, no pending request, no response, the run from the projection", () => {
    const projection = projectionOf("42-http-thread-with-message.json");
    const read = threadRead(row(final, IDS.t1), projection, null, { now: LATER });
    expect(read).toMatchObject({
      state: "cancelled",
      statusRun: "interrupted",
      runId: T1_RUN,
      pendingRequests: [],
      providerSession: null,
      activeRun: null,
      latestRun: { runId: T1_RUN, ordinal: 1, status: "interrupted" },
      latestResponse: null,
      history: { complete: true, payloadBudgetExceeded: false },
    });
    expect(recentMessages(projection)).toEqual([
      {
        messageId: "98b110b1-cf9e-4362-97fe-c1f775e7576c",
        role: "user",
        text: "Hello from the fixture capture. Please list the files in this workspace.",
        truncated: false,
        streaming: false,
        createdAt: "2026-12-02T13:01:45.256Z",
      },
    ]);
  });

  it("T6 never interrupted: running, the active run with its ordinal and requested model", () => {
    const read = threadRead(row(final, IDS.t6), projectionOf("91-http-thread-t6-final.json"), null, {
      now: LATER,
    });
    expect(read).toMatchObject({
      state: "running",
      stateSource: "active_run",
      activeRun: {
        runId: T6_RUN,
        ordinal: 1,
        status: "starting",
        model: { model: "gpt-5.6-sol", instanceId: "codex", effort: null },
      },
      latestRun: { runId: T6_RUN, ordinal: 1, status: "starting" },
      pendingRequests: [],
      latestResponse: null,
    });
    expect(read).not.toHaveProperty("latestRunStatus");
  });

  it("T5 archived: still readable by id, no run", () => {
    const read = threadRead(row(final, IDS.t5), projectionOf("46-http-thread-archived.json"), null, {
      now: LATER,
    });
    expect(read).toMatchObject({ state: "no_run", activeRun: null, latestRun: null, pendingRequests: [] });
  });
});

describe("the projection over the real live shell stream (36)", () => {
  it("T1 moves from no run to running (starting) to cancelled (interrupted)", () => {
    const exchange = JSON.parse(
      readFileSync(path.join(fixtures, "36-ws-subscribeShell-during-setup.json"), "utf8"),
    ) as {
      response: { ws_frames_received: Array<{ frame: { values?: unknown[] } }> };
    };
    const states: string[] = [];
    for (const { frame } of exchange.response.ws_frames_received) {
      for (const value of frame.values ?? []) {
        const item = value as { kind?: string; thread?: ShellThreadInput };
        if (item.kind === "thread.updated" && item.thread?.id === IDS.t1) {
          states.push(threadSummary(item.thread, { now: AT_CAPTURE }).state);
        }
      }
    }
    expect(states).toEqual(["no_run", "running", "running", "running", "running", "cancelled"]);
  });
});
