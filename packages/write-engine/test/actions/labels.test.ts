import {
  ACTION_GROUPS,
  ACTIONS,
  actionInfo,
  actionLabel,
  DESTRUCTIVE_ACTIONS,
} from "@t3-connector/write-engine/actions";
import { describe, expect, it } from "vitest";

/** Decided action by action (ADR 0017): each of these loses work or data irreversibly. */
const DESTRUCTIVE = [
  "thread.delete",
  "checkpoint.rollback",
  "thread.merge_back",
  "delegated_task.completion-delivery.dispose",
  "project.delete",
];

describe("the catalogue's words for people", () => {
  it("gives every one of the 47 actions a plain label, one line of what it does and a risk group", () => {
    expect(ACTIONS).toHaveLength(47);
    for (const entry of ACTIONS) {
      expect(entry.label.trim().length, entry.action).toBeGreaterThan(3);
      // A label a person reads: no dotted ids, no field names.
      expect(entry.label, entry.action).not.toMatch(/[._]|[a-z][A-Z]/);
      expect(entry.description, entry.action).toMatch(/^[A-Z].*\.$/);
      expect(entry.description, entry.action).not.toContain("\n");
      expect(entry.description.length, entry.action).toBeLessThanOrEqual(140);
      expect(ACTION_GROUPS, entry.action).toContain(entry.group);
    }
    expect(new Set(ACTIONS.map((entry) => entry.label)).size).toBe(47);
  });

  it("puts exactly the irreversible actions in the destructive group", () => {
    expect([...DESTRUCTIVE_ACTIONS].sort()).toEqual([...DESTRUCTIVE].sort());
    for (const action of DESTRUCTIVE) expect(actionInfo(action).group).toBe("destructive");
  });

  it("files pin, title, archive, snooze and unread as organizing and send, answer, interrupt, queue as running", () => {
    for (const action of [
      "thread.pin",
      "thread.title",
      "thread.archive",
      "thread.snooze",
      "thread.mark-unread",
    ]) {
      expect(actionInfo(action).group, action).toBe("organize");
    }
    for (const action of [
      "thread.send",
      "runtime-request.answer",
      "runtime-request.approve",
      "run.interrupt",
      "queue.resume",
      "queued-run.cancel",
    ]) {
      expect(actionInfo(action).group, action).toBe("run");
    }
  });

  it("labels the composite conditional send and leaves an unknown id as itself", () => {
    expect(actionLabel("thread.pin")).toBe("Pin a thread");
    expect(actionLabel("thread.conditional-send")).toBe("Send after run ends");
    expect(actionLabel("thread.nonexistent")).toBe("thread.nonexistent");
  });
});
