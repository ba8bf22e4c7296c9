import type { SimEnvironment } from "@t3-connector/t3-sim";
import { type SimReadSetup, startSimRead } from "@t3-connector/test-support/sim-context";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { t3SinceTool } from "../../src/tools/t3_since.js";
import { ALPHA_ID, BETA_ID, invalidInput } from "./listing-support.js";

const TOOL = "t3_since";

type Change = {
  kind: string;
  at: string;
  runId?: string | null;
  runStatus?: string;
  from?: string;
  to?: string;
};
type Item = {
  threadId: string;
  title: string;
  state: string;
  environment: { alias: string; environmentId: string };
  project: { title?: string };
  changes: Change[];
};

let setup: SimReadSetup;
let counter = 0;

beforeEach(async () => {
  // Manual clocks: a run ends only when the test moves its environment's time, so "before" and
  // "after" it ended are instants the test knows, not races. Every shell commit is sent at once:
  // current T3's 50 ms coalescing would let a read right after the run ended miss its row (a
  // late row is what the cursor's overlap is for, tested in since-overlap.test.ts).
  setup = await startSimRead({
    simulator: {
      clock: "manual",
      environments: [
        {
          alias: "alpha",
          environmentId: ALPHA_ID,
          label: "Alpha laptop",
          seed: "demo",
          shellSuppression: false,
        },
        {
          alias: "beta",
          environmentId: BETA_ID,
          label: "Beta server",
          seed: "demo",
          shellSuppression: false,
        },
      ],
    },
    definitions: [t3SinceTool],
  });
});

afterEach(async () => {
  await setup.close();
});

function projectOf(env: SimEnvironment, title: string): string {
  const project = [...env.model.store.projects.values()].find((p) => p.title === title);
  if (project === undefined) throw new Error(`no project ${title}`);
  return project.id;
}

async function dispatch(env: SimEnvironment, command: Record<string, unknown>): Promise<void> {
  const outcome = await env.model.callUnary("orchestration.dispatchCommand", {
    commandId: `cmd-since-${++counter}`,
    ...command,
  });
  expect(outcome.kind).toBe("success");
}

/** A thread in `env` whose new run is started now; it ends when the test advances the clock. */
async function startRun(env: SimEnvironment, title: string): Promise<string> {
  const threadId = env.model.addThread({ projectId: projectOf(env, "t3-connector"), title });
  env.model.scriptNextRun(threadId, {});
  await dispatch(env, {
    type: "message.dispatch",
    threadId,
    messageId: `msg-since-${counter}`,
    text: "Please fix the parser.",
    attachments: [],
    createdBy: "user",
    creationSource: "mcp",
    dispatchMode: { type: "start_immediately" },
  });
  return threadId;
}

function threadsOf(result: Record<string, unknown>): Item[] {
  return result.threads as Item[];
}

function changeOf(result: Record<string, unknown>, threadId: string, kind: string): Change | undefined {
  return threadsOf(result)
    .find((item) => item.threadId === threadId)
    ?.changes.find((change) => change.kind === kind);
}

/**
 * The tool's answer to `input` once the live mirror holds the end of `threadId`'s run: moving the
 * simulator's clock ends the run at once, but its shell event reaches the mirror over the
 * WebSocket a moment later, so a read right after the move may still see the run going.
 */
async function answerOnceRunEnded(input: Record<string, unknown>, threadId: string) {
  let answer: Record<string, unknown> = {};
  await expect
    .poll(
      async () => {
        answer = await setup.call(TOOL, input);
        return changeOf(answer, threadId, "run_ended");
      },
      { timeout: 30_000, interval: 20 },
    )
    .toBeDefined();
  return answer;
}

describe("t3_since", () => {
  it("lists a run that ended after the time asked, with its thread and environment, in both demo environments", async () => {
    for (const alias of ["alpha", "beta"]) {
      const env = setup.sim.environment(alias);
      const threadId = await startRun(env, `Parser fix on ${alias}`);
      const beforeEnd = env.clock.isoNow();
      env.clock.advance(1_000);
      const afterEnd = new Date(env.clock.now() + 1).toISOString();

      const before = await answerOnceRunEnded({ since: beforeEnd }, threadId);
      expect(before).toMatchObject({ complete: true, environmentFailures: [] });
      const item = threadsOf(before).find((t) => t.threadId === threadId);
      expect(item).toMatchObject({
        title: `Parser fix on ${alias}`,
        state: "completed",
        environment: { alias, environmentId: alias === "alpha" ? ALPHA_ID : BETA_ID },
        project: { title: "t3-connector" },
      });
      expect(changeOf(before, threadId, "run_ended")).toMatchObject({
        runStatus: "completed",
        runId: expect.any(String),
        // Beside the run that ended, what it changed (its checkpoint).
        changedFiles: 1,
        changeLine: "1 file changed, +1 -0",
      });
      expect((before.counts as Record<string, number>).runsEnded).toBeGreaterThanOrEqual(1);

      const after = await setup.call(TOOL, { since: afterEnd });
      expect(threadsOf(after).find((t) => t.threadId === threadId)).toBeUndefined();
    }
  });

  it("answers from a cursor: the next call lists only what changed after the previous one", async () => {
    const alpha = setup.sim.environment("alpha");
    const first = await setup.call(TOOL, { since: new Date(alpha.clock.now() - 60_000).toISOString() });
    const threadId = await startRun(alpha, "Started after the first look");
    alpha.clock.advance(1_000);

    const second = await answerOnceRunEnded({ cursor: first.nextCursor }, threadId);
    expect(changeOf(second, threadId, "thread_created")).toBeDefined();
    expect(changeOf(second, threadId, "run_started")).toBeDefined();
    expect(changeOf(second, threadId, "run_ended")).toMatchObject({ runStatus: "completed" });
    expect(threadsOf(second).every((t) => t.environment.alias === "alpha")).toBe(true);

    const third = await setup.call(TOOL, { cursor: second.nextCursor });
    expect(third).toMatchObject({ total: 0, threads: [], counts: { runsEnded: 0, runsStarted: 0 } });
  });

  it("reports archives from T3's own time and renames the server saw between two reads", async () => {
    const beta = setup.sim.environment("beta");
    const threadId = beta.model.addThread({ projectId: projectOf(beta, "website"), title: "Old name" });
    const first = await setup.call(TOOL, { since: beta.clock.isoNow() });
    beta.clock.advance(10);
    await dispatch(beta, { type: "thread.metadata.update", threadId, title: "New name" });
    await dispatch(beta, { type: "thread.archive", threadId });

    const second = await setup.call(TOOL, { cursor: first.nextCursor });
    expect(changeOf(second, threadId, "thread_renamed")).toMatchObject({ from: "Old name", to: "New name" });
    expect(changeOf(second, threadId, "thread_archived")).toBeDefined();
    expect(second.counts).toMatchObject({ threadsRenamed: 1, threadsArchived: 1 });
    expect(String(second.limits)).toMatch(/does not date renames/);
  });

  it("called again and again with its cursor during a burst of renames, counts each rename once", async () => {
    const beta = setup.sim.environment("beta");
    const threadId = beta.model.addThread({ projectId: projectOf(beta, "website"), title: "Name 0" });
    let answer = await setup.call(TOOL, { since: beta.clock.isoNow() });
    const reported: string[] = [];
    let counted = 0;
    for (let index = 1; index <= 6; index += 1) {
      beta.clock.advance(10);
      await dispatch(beta, { type: "thread.metadata.update", threadId, title: `Name ${index}` });
      // A second call before the next rename: it must find nothing new.
      for (const _ of [0, 1]) {
        answer = await setup.call(TOOL, { cursor: answer.nextCursor });
        counted += (answer.counts as { threadsRenamed: number }).threadsRenamed;
        for (const thread of threadsOf(answer))
          for (const change of thread.changes)
            if (change.kind === "thread_renamed") reported.push(`${change.from} > ${change.to}`);
      }
    }
    expect(reported).toEqual([1, 2, 3, 4, 5, 6].map((index) => `Name ${index - 1} > Name ${index}`));
    expect(counted).toBe(6);
  });

  it("counts everything but lists at most limit threads, newest change first", async () => {
    const since = new Date(setup.sim.environment("alpha").clock.now() - 7 * 24 * 3_600_000).toISOString();
    const all = await setup.call(TOOL, { since });
    const one = await setup.call(TOOL, { since, limit: 1 });
    expect(one).toMatchObject({ returned: 1, truncated: true, total: all.total, counts: all.counts });
    const newest = (item: Item) => Math.max(...item.changes.map((c) => Date.parse(c.at)));
    const stamps = threadsOf(all).map(newest);
    expect(stamps).toEqual([...stamps].sort((a, b) => b - a));
    // The demo asks for a person on both machines: a question, an approval and a secret each.
    expect((all.counts as Record<string, number>).askedForPerson).toBeGreaterThanOrEqual(4);
  });

  it("refuses a call without exactly one of since and cursor, a bad time, and a foreign cursor", async () => {
    expect(await setup.callError(TOOL, {})).toMatch(/^invalid_input: .*exactly one of since/);
    expect(await setup.callError(TOOL, { since: "2026-01-01T00:00:00Z", cursor: "x.y" })).toMatch(
      /^invalid_input/,
    );
    expect(await setup.callError(TOOL, { since: "yesterday" })).toMatch(
      /^invalid_input: since is not an ISO/,
    );
    expect(await setup.callError(TOOL, { cursor: "abc.def" })).toMatch(/^invalid_cursor/);
    const scoped = await setup.call(TOOL, { since: "2026-01-01T00:00:00Z", environment: "alpha" });
    expect(await setup.callError(TOOL, { cursor: scoped.nextCursor })).toMatch(/^invalid_cursor/);
    expect((await invalidInput(setup, TOOL, { desde: "2026-01-01T00:00:00Z" })).code).toBe("invalid_input");
  });
});
