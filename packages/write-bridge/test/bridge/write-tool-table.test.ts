/**
 * The bridge's table of how each catalogue action is presented as an MCP tool: one literal name per
 * action that follows the naming rule, the destructive hint where a write loses work, and nothing
 * for an action the catalogue does not have.
 */
import { ACTIONS, CONDITIONAL_SEND_ACTION } from "@t3-connector/write-engine/actions";
import { describe, expect, it } from "vitest";
import {
  WRITE_TOOL_TABLE,
  type WriteToolRow,
  writeToolAnnotations,
  writeToolRow,
} from "../../src/tools/write-tool-table.js";

describe("the write tools' table", () => {
  it("has one entry per catalogue action, in catalogue order, then the conditional send and the threads batch", () => {
    expect(Object.keys(WRITE_TOOL_TABLE)).toEqual([
      ...ACTIONS.map((entry) => entry.action),
      CONDITIONAL_SEND_ACTION,
      "threads.batch",
    ]);
  });

  it("gives every action a unique literal tool name that follows the naming rule", () => {
    const names = Object.values(WRITE_TOOL_TABLE).map((row) => row.name);
    expect(new Set(names).size).toBe(names.length);
    for (const [action, row] of Object.entries(WRITE_TOOL_TABLE)) {
      expect(row.name).toMatch(/^t3_escrever_[a-z_]+$/);
      expect(row.name).toBe(`t3_escrever_${action.replace(/[.-]/g, "_")}`);
    }
  });

  it("makes a tool name that does not follow its action id a compile error", () => {
    // @ts-expect-error the name must be t3_escrever_thread_example_action
    const wrong: WriteToolRow<"thread.example-action"> = { name: "t3_escrever_thread_example" };
    expect(wrong.name).not.toBe("t3_escrever_thread_example_action");
  });

  it("spells out all four hints on every tool; only the destructive one varies", () => {
    for (const row of Object.values(WRITE_TOOL_TABLE)) {
      expect(writeToolAnnotations(row)).toEqual({
        readOnlyHint: false,
        destructiveHint: expect.any(Boolean),
        idempotentHint: true,
        openWorldHint: false,
      });
    }
  });

  it("marks harmless overlays as non-destructive and irreversible ones as destructive", () => {
    const destructive = (action: keyof typeof WRITE_TOOL_TABLE) =>
      writeToolAnnotations(writeToolRow(action)).destructiveHint;
    for (const action of [
      "thread.pin",
      "thread.unpin",
      "thread.visit",
      "thread.mark-unread",
      "thread.snooze",
    ] as const) {
      expect(destructive(action)).toBe(false);
    }
    for (const action of [
      "thread.delete",
      "run.interrupt",
      "checkpoint.rollback",
      "queued-run.cancel",
      "thread.send",
    ] as const) {
      expect(destructive(action)).toBe(true);
    }
  });
});
