import { randomUUID } from "node:crypto";
import { countShellReads, readyMirror } from "@t3-connector/test-support/mirror-support";
import { type SimReadSetup, startSimRead } from "@t3-connector/test-support/sim-context";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readToolDefinitions } from "../../src/tools/index.js";

// Issue 20, read-after-write: a thread created at T3 and read at once must be found, although the
// live shell mirror has not seen it yet. The simulator's clock is manual, so T3's coalescing of
// shell rows holds the new thread's row back from the mirror until time advances: the mirror
// lags deterministically, never by luck.
let setup: SimReadSetup;
beforeEach(async () => {
  setup = await startSimRead({
    simulator: { environments: [{ alias: "alpha", seed: "demo" }], clock: "manual" },
    definitions: readToolDefinitions,
  });
});
afterEach(async () => {
  await setup?.close();
});

/** Creates a thread straight at the simulator, as T3's own UI would. */
async function createThreadAtT3(): Promise<string> {
  const alpha = setup.sim.environment("alpha");
  const projects = alpha.model.httpProjects();
  const projectId =
    projects.kind === "ok"
      ? (projects.body as { projects: Array<{ id: string }> }).projects[0]?.id
      : undefined;
  const threadId = randomUUID();
  const outcome = await alpha.model.callUnary("orchestration.dispatchCommand", {
    type: "thread.create",
    commandId: randomUUID(),
    threadId,
    projectId,
    title: "Created a moment ago",
    modelSelection: { instanceId: "codex", model: "gpt-5.6-sol" },
    runtimeMode: "full-access",
    interactionMode: "default",
    branch: null,
    worktreePath: null,
    createdBy: "user",
    creationSource: "web",
  });
  expect(outcome.kind).toBe("success");
  return threadId;
}

describe("a thread created at T3 and read at once", () => {
  it("is found by t3_thread, t3_mensagens and t3_thread_read_batch while the mirror has not seen it", async () => {
    // A listing starts alpha's live mirror; by-id reads then answer from it when they can.
    await setup.call("t3_threads", {});
    const mirror = await readyMirror(setup, "alpha");
    const threadId = await createThreadAtT3();
    expect(mirror.snapshot()?.threads.some((thread) => thread.id === threadId)).toBe(false);
    const shellReads = countShellReads(setup.sim.environment("alpha"));

    const thread = await setup.call("t3_thread", { environment: "alpha", threadId });
    expect(thread.threadId).toBe(threadId);
    expect(thread.title).toBe("Created a moment ago");
    // The mirror did not list it, so T3's own shell was asked.
    expect(shellReads()).toBeGreaterThanOrEqual(1);

    const messages = await setup.call("t3_mensagens", { environment: "alpha", threadId });
    expect(messages.threadId).toBe(threadId);

    const batch = await setup.call("t3_thread_read_batch", { items: [{ environment: "alpha", threadId }] });
    expect(batch.allSucceeded).toBe(true);
  });

  it("still answers thread_not_found for an id T3 does not have either", async () => {
    await setup.call("t3_threads", {});
    await readyMirror(setup, "alpha");
    const result = await setup.client.callTool({
      name: "t3_thread",
      arguments: { environment: "alpha", threadId: randomUUID() },
    });
    expect(result.isError).toBe(true);
    const text = (result.content as Array<{ text?: string }>)[0]?.text ?? "";
    expect(text).toContain("thread_not_found");
  });
});

/** One command straight at the simulator, as the gate's completed write would have sent it. */
async function dispatchAtT3(type: string, threadId: string, fields: Record<string, unknown> = {}) {
  const outcome = await setup.sim
    .environment("alpha")
    .model.callUnary("orchestration.dispatchCommand", { type, commandId: randomUUID(), threadId, ...fields });
  expect(outcome.kind, type).toBe("success");
}

describe("t3_thread right after a completed write the mirror has not shown yet", () => {
  it("shows the pin, unpin, settle, snooze, rename and archive at once, from T3's fresh projection", async () => {
    await setup.call("t3_threads", {});
    const mirror = await readyMirror(setup, "alpha");
    // A thread the mirror already lists, so t3_thread answers from the mirror's row.
    const listed = mirror
      .snapshot()
      ?.threads.find(
        (thread) => !thread.pinnedAt && !thread.settledAt && !thread.archivedAt && !thread.deletedAt,
      );
    const threadId = listed?.id ?? "";
    expect(threadId).not.toBe("");
    const read = () => setup.call("t3_thread", { environment: "alpha", threadId });
    expect(await read()).toMatchObject({ pinned: false, settled: false });
    // The simulator's clock stands still: from here on the mirror's row of the thread is frozen.
    const mirrored = () => mirror.snapshot()?.threads.find((thread) => thread.id === threadId);

    await dispatchAtT3("thread.pin", threadId);
    expect(await read()).toMatchObject({ pinned: true });
    expect(Boolean(mirrored()?.pinnedAt)).toBe(false);

    await dispatchAtT3("thread.unpin", threadId);
    expect(await read()).toMatchObject({ pinned: false });

    await dispatchAtT3("thread.settle", threadId);
    expect(await read()).toMatchObject({ settled: true });

    const until = new Date(Date.parse("2030-01-01T00:00:00.000Z")).toISOString();
    await dispatchAtT3("thread.snooze", threadId, { snoozedUntil: until });
    expect((await read()).snoozedUntil).toBe(until);

    await dispatchAtT3("thread.metadata.update", threadId, { title: "Renamed a moment ago" });
    expect(await read()).toMatchObject({ title: "Renamed a moment ago" });

    await dispatchAtT3("thread.archive", threadId);
    expect(await read()).toMatchObject({ archived: true });
  });
});
