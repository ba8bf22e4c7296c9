/**
 * Every catalogue action declares how it relates to an agent's run (ADR 0037), and the ceiling
 * follows from that one declaration. The table below is the reviewed classification, literally:
 * adding an action, or moving one to another effect, fails here until the table (and the ADR's
 * reasoning) say so too.
 */
import { describe, expect, it } from "vitest";
import { defineAction, threadOnlyInput } from "../../src/actions/define.js";
import {
  ACTIONS,
  type ActionId,
  drivenThreadMode,
  getAction,
  prepareAction,
  RUN_EFFECTS,
  type RunEffect,
  SAMPLE_INPUTS,
  type ThreadRunView,
} from "../../src/actions/index.js";

const KEY = "b".repeat(64);

const EFFECTS: Record<ActionId, RunEffect> = {
  "thread.archive": "runs-nothing",
  "thread.unarchive": "runs-nothing",
  "thread.delete": "runs-nothing",
  "thread.settle": "runs-nothing",
  "thread.pin": "runs-nothing",
  "thread.unpin": "runs-nothing",
  "thread.unsnooze": "runs-nothing",
  "thread.mark-unread": "runs-nothing",
  "thread.unsettle": "runs-nothing",
  "thread.snooze": "runs-nothing",
  "thread.auto-settle.set": "runs-nothing",
  "thread.pin.reorder": "runs-nothing",
  "thread.active.reorder": "runs-nothing",
  "thread.visit": "runs-nothing",
  "thread.title": "runs-nothing",
  "thread.runtime-mode.set": "sets-mode",
  "thread.interaction-mode.set": "changes-run",
  "thread.model-selection.set": "runs-nothing",
  "provider.switch": "changes-run",
  "provider-session.detach": "changes-run",
  "run.interrupt": "changes-run",
  "prepared-run.release": "starts-run",
  "prepared-run.retry": "starts-run",
  "queue.resume": "starts-run",
  "queued-run.cancel": "runs-nothing",
  "queued-run.reorder": "changes-run",
  "queued-run.edit": "changes-run",
  "queued-message.promote-to-steer": "changes-run",
  "runtime-request.approve": "starts-run",
  "runtime-request.answer": "starts-run",
  "thread.user-input.dismiss": "runs-nothing",
  "checkpoint.rollback": "runs-nothing",
  "thread.launch": "starts-run",
  "thread.send": "starts-run",
  "thread.metadata.update": "changes-run",
  "thread.pull-request.link": "runs-nothing",
  "thread.pull-request.unlink": "runs-nothing",
  "thread.pull-request.watch": "starts-run",
  "thread.fork": "sets-mode",
  "thread.merge_back": "changes-run",
  "delegated_task.request": "starts-run",
  "delegated_task.wake-policy": "starts-run",
  "delegated_task.completion-delivery.acknowledge": "runs-nothing",
  "delegated_task.completion-delivery.dispose": "runs-nothing",
  "project.create": "runs-nothing",
  "project.meta.update": "runs-nothing",
  "project.delete": "runs-nothing",
};

function view(id: string, fields: Partial<ThreadRunView> = {}): ThreadRunView {
  return { id, runtimeMode: "full-access", activeRunId: null, queuedToStart: 0, ...fields };
}

/** The driven mode for the action's sample input (with changes) against one full-access thread. */
function driven(action: ActionId, thread: Partial<ThreadRunView> = {}, input: Record<string, unknown> = {}) {
  const prepared = prepareAction(action, { ...SAMPLE_INPUTS[action], ...input }, KEY);
  const ids = getAction(action).targets(prepared.input).threadIds;
  return drivenThreadMode(
    action,
    prepared.input,
    ids.map((id) => view(id, thread)),
  );
}

describe("how each action relates to an agent's run", () => {
  it("is declared by every entry, as one of the four effects, exactly as reviewed", () => {
    for (const entry of ACTIONS) expect(RUN_EFFECTS, entry.action).toContain(entry.runEffect);
    expect(Object.fromEntries(ACTIONS.map((entry) => [entry.action, entry.runEffect]))).toEqual(EFFECTS);
  });

  it("caps the mode an input names only where it starts a run or sets a mode", () => {
    for (const entry of ACTIONS.filter((candidate) => candidate.runtimeModeField !== undefined)) {
      expect(["starts-run", "sets-mode"], entry.action).toContain(entry.runEffect);
    }
  });

  it("caps a full-access thread's mode for every action that can make its agent run, and for no other", () => {
    for (const entry of ACTIONS) {
      // Entries whose effect depends on the input or the thread are walked one by one below.
      if (entry.effectHolds !== undefined) continue;
      const mode = driven(entry.action, { activeRunId: "run-active", queuedToStart: 1 })?.mode;
      const input = prepareAction(entry.action, SAMPLE_INPUTS[entry.action], KEY).input;
      const threads = (entry.drives as (parsed: unknown) => readonly string[])(input);
      const expected = entry.runEffect === "runs-nothing" || threads.length === 0 ? undefined : "full-access";
      expect(mode, entry.action).toBe(expected);
    }
  });

  it("lets a stop that starts nothing through: holding the queue, or no queued run to start", () => {
    expect(driven("run.interrupt", { queuedToStart: 2 }, { holdQueue: undefined })?.mode).toBe("full-access");
    expect(driven("run.interrupt", { queuedToStart: 2 }, { holdQueue: false })?.mode).toBe("full-access");
    expect(driven("run.interrupt", { queuedToStart: 2 }, { holdQueue: true })).toBeUndefined();
    expect(driven("run.interrupt", { queuedToStart: 0 }, { holdQueue: undefined })).toBeUndefined();
  });

  it("lets a mode switch through on an idle thread, never on one whose agent is running above the ceiling", () => {
    expect(driven("thread.runtime-mode.set", { activeRunId: null })).toBeUndefined();
    expect(driven("thread.runtime-mode.set", { activeRunId: "run-1" })?.mode).toBe("full-access");
  });

  it("caps only what widens a run: leaving plan mode, moving the workspace, watching a pull request", () => {
    expect(driven("thread.interaction-mode.set", {}, { interactionMode: "plan" })).toBeUndefined();
    expect(driven("thread.interaction-mode.set", {}, { interactionMode: "default" })?.mode).toBe(
      "full-access",
    );
    expect(
      driven("thread.metadata.update", {}, { title: "Renamed", branch: undefined, worktreePath: undefined }),
    ).toBeUndefined();
    expect(driven("thread.metadata.update", {}, { branch: "feature/y" })?.mode).toBe("full-access");
    expect(driven("thread.pull-request.watch", {}, { watching: false })).toBeUndefined();
    expect(driven("thread.pull-request.watch", {}, { watching: true, paused: true })).toBeUndefined();
    expect(driven("thread.pull-request.watch", {}, { watching: true })?.mode).toBe("full-access");
  });

  it("drives a merge-back's target thread only, whose next run carries the merged work", () => {
    const prepared = prepareAction("thread.merge_back", SAMPLE_INPUTS["thread.merge_back"], KEY);
    const { sourceThreadId, targetThreadId } = prepared.input as {
      sourceThreadId: string;
      targetThreadId: string;
    };
    const threads = [view(sourceThreadId), view(targetThreadId, { runtimeMode: "auto" })];
    expect(drivenThreadMode("thread.merge_back", prepared.input, threads)).toEqual({
      threadId: targetThreadId,
      mode: "auto",
    });
  });

  it("is required: an entry that does not say how it relates to a run does not compile", () => {
    const undeclared = defineAction(
      // @ts-expect-error runEffect is missing: the catalogue refuses an entry without one at compile time.
      {
        action: "thread.undeclared",
        label: "Undeclared",
        group: "organize",
        description: "An entry that says nothing about runs.",
        inputSchema: threadOnlyInput,
        fields: (input: { threadId: string }) => ({ threadId: input.threadId }),
      },
    );
    expect(undeclared.runEffect).toBeUndefined();
  });
});
