/**
 * The benchmarks' one percentile helper (bench/lib/stats.mjs): nearest-rank, so a reported p99 is
 * always a time that was measured, and every bench takes its figures from it (no private copies
 * that could disagree on what "p99" means).
 */
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { pairedChange, percentile, summarize, tailLabel } from "../bench/lib/stats.mjs";

const benchDir = new URL("../bench/", import.meta.url);

describe("the benchmarks' percentile helper", () => {
  it("answers the nearest-rank sample, never an interpolated value", () => {
    const samples = Array.from({ length: 100 }, (_, i) => 100 - i); // 100..1, unsorted input
    expect(percentile(samples, 50)).toBe(50);
    expect(percentile(samples, 99)).toBe(99);
    expect(percentile(samples, 100)).toBe(100);
    expect(percentile([7, 3], 50)).toBe(3);
    expect(percentile([7, 3], 99)).toBe(7);
  });

  it("does not reorder the caller's samples and answers NaN for none", () => {
    const samples = [3, 1, 2];
    percentile(samples, 50);
    expect(samples).toEqual([3, 1, 2]);
    expect(percentile([], 99)).toBeNaN();
  });

  it("summarizes count, p50, p99 and max together", () => {
    expect(summarize([4, 1, 3, 2])).toEqual({ count: 4, p50: 2, p99: 4, max: 4 });
  });

  it("names a tail from fewer than 100 samples for what it is", () => {
    expect(tailLabel(100)).toBe("p99");
    expect(tailLabel(40)).toBe("max of 40");
  });

  it("is where every benchmark in bench/ takes its percentiles from", () => {
    const benches = readdirSync(benchDir).filter((name) => name.endsWith(".mjs"));
    for (const name of benches) {
      const source = readFileSync(new URL(name, benchDir), "utf8");
      expect(source, name).toContain('from "./lib/stats.mjs"');
      expect(source, name).not.toMatch(/function\s+(pct|percentiles?|round)\s*\(/);
    }
  });
});

describe("the paired scripts' change figure", () => {
  it("gives each build's p50 and the change from the base build, in percent", () => {
    expect(pairedChange([10, 12, 11], [8, 9, 10])).toEqual({
      samples: 3,
      baseP50Ms: 11,
      thisP50Ms: 9,
      changePercent: -18.18,
    });
  });
});
