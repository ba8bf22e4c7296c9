import { describe, expect, it } from "vitest";
import { compareKeyParts, compareKeys, isKeyPart } from "../../src/pagination/index.js";

describe("key order", () => {
  it("orders null before numbers before strings", () => {
    const parts = ["b", 2, null, "a", 1];
    expect([...parts].sort(compareKeyParts)).toEqual([null, 1, 2, "a", "b"]);
  });

  it("compares strings by code unit, not by locale", () => {
    expect(compareKeyParts("Z", "a")).toBeLessThan(0);
    expect(compareKeyParts("a", "a")).toBe(0);
  });

  it("applies each element's direction and falls through ties", () => {
    const directions = ["desc", "asc"] as const;
    expect(compareKeys([2, "x"], [1, "a"], directions)).toBeLessThan(0);
    expect(compareKeys([1, "a"], [1, "b"], directions)).toBeLessThan(0);
    expect(compareKeys([1, "b"], [1, "b"], directions)).toBe(0);
  });

  it("accepts only JSON scalars that compare totally as key parts", () => {
    expect([null, 0, "x"].every(isKeyPart)).toBe(true);
    expect([Number.NaN, Number.POSITIVE_INFINITY, true, {}, []].some(isKeyPart)).toBe(false);
  });
});
