/**
 * The bounded window's byte budget: the rows a window keeps and its `payloadBudgetExceeded` flag,
 * against the rule written out (the UTF-8 length of the kept rows' JSON, over 1 MiB), for windows
 * near the budget in single-byte and multi-byte text, with and without user turns.
 */
import { describe, expect, it } from "vitest";
import { MAX_ENCODED_BYTES, windowBefore } from "../../src/model/history-window.js";
import type { ProjectedTurnItem } from "../../src/model/types.js";

const over = (rows: readonly ProjectedTurnItem[]) =>
  Buffer.byteLength(JSON.stringify(rows), "utf8") > MAX_ENCODED_BYTES;

function row(index: number, type: string, text: string): ProjectedTurnItem {
  return {
    position: index,
    visibility: "local",
    sourceThreadId: "t",
    sourceItemId: `item-${index}`,
    item: { id: `item-${index}`, type, text } as unknown as ProjectedTurnItem["item"],
  };
}

const rowsOf = (count: number, type: string, text: string) =>
  Array.from({ length: count }, (_, index) => row(index, type, text));

describe("the history window's byte budget", () => {
  it.each([
    ["small rows", 10, "a".repeat(100)],
    ["rows over the budget together, in single-byte text", 8, "a".repeat(200_000)],
    ["rows whose text is under the budget in characters but over it in bytes", 8, "é".repeat(90_000)],
    ["rows whose characters could be over but whose bytes are not", 4, "é".repeat(100_000)],
    ["one row over the budget by itself", 3, "€".repeat(400_000)],
  ])("without user turns, drops the oldest rows while the rest is over: %s", (_label, count, text) => {
    const rows = rowsOf(count, "assistant_message", text);
    const window = windowBefore(rows, rows.length, 10, {});
    let start = Math.max(0, rows.length - 75);
    while (start < rows.length - 1 && over(rows.slice(start))) start += 1;
    expect(window).toEqual({ start, payloadBudgetExceeded: over(rows.slice(start)) });
  });

  it.each([
    ["under the budget", "a".repeat(1_000)],
    ["over it in multi-byte text", "é".repeat(300_000)],
  ])("with user turns, keeps the turns and says whether they are over: %s", (_label, text) => {
    const rows = [
      row(0, "user_message", "hi"),
      row(1, "assistant_message", text),
      row(2, "assistant_message", text),
    ];
    expect(windowBefore(rows, rows.length, 10, {})).toEqual({
      start: 0,
      payloadBudgetExceeded: over(rows),
    });
  });

  it("with a fixed row count, flags a window over the budget", () => {
    const rows = rowsOf(5, "assistant_message", "€".repeat(200_000));
    expect(windowBefore(rows, rows.length, 10, { fixedRows: 2 })).toEqual({
      start: 3,
      payloadBudgetExceeded: over(rows.slice(3)),
    });
    expect(over(rows.slice(3))).toBe(true);
  });
});
