import { describe, expect, it } from "vitest";
import { isTooDeep, jsonDepth, MAX_JSON_INPUT_DEPTH } from "../../src/schema/index.js";

/** `[[[…]]]` nested `depth` levels, built and parsed as a client would send it. */
function deepArray(depth: number): unknown {
  return JSON.parse(`${"[".repeat(depth)}${"]".repeat(depth)}`);
}

/** `{"a":{"a":…{}}}` nested `depth` levels. */
function deepObject(depth: number): unknown {
  return JSON.parse(`${'{"a":'.repeat(depth - 1)}{}${"}".repeat(depth - 1)}`);
}

describe("jsonDepth", () => {
  it("counts a scalar as 0 and each level of objects or arrays as one more", () => {
    expect(jsonDepth("text")).toBe(0);
    expect(jsonDepth(null)).toBe(0);
    expect(jsonDepth({})).toBe(1);
    expect(jsonDepth([])).toBe(1);
    expect(jsonDepth({ a: [1, { b: "x" }], c: 2 })).toBe(3);
    expect(jsonDepth([[], [[[]]], {}])).toBe(4);
  });

  it("measures the deepest branch, wherever it is", () => {
    expect(jsonDepth({ shallow: 1, deep: { a: { b: { c: {} } } }, other: [] })).toBe(5);
    expect(jsonDepth([{ a: {} }, deepObject(7), []])).toBe(8);
  });

  it("measures a 100,000-deep value without exhausting the stack", () => {
    expect(jsonDepth(deepArray(100_000))).toBe(100_000);
    expect(jsonDepth(deepObject(100_000))).toBe(100_000);
  });

  it("stops counting past stopAfter and says stopAfter + 1", () => {
    expect(jsonDepth(deepArray(10_000), 64)).toBe(65);
    expect(jsonDepth(deepArray(64), 64)).toBe(64);
  });

  it("refuses a value nested past the input limit and accepts one at the limit", () => {
    expect(isTooDeep(deepArray(MAX_JSON_INPUT_DEPTH))).toBe(false);
    expect(isTooDeep(deepArray(MAX_JSON_INPUT_DEPTH + 1))).toBe(true);
    expect(isTooDeep(deepObject(10_000))).toBe(true);
    expect(isTooDeep({ a: { b: 1 } }, 2)).toBe(false);
    expect(isTooDeep({ a: { b: {} } }, 2)).toBe(true);
  });
});
