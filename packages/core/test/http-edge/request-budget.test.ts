import { describe, expect, it } from "vitest";
import type { Clock } from "../../src/clock.js";
import { RequestBudget } from "../../src/http-edge/index.js";

function steppedClock(): Clock & { advance(ms: number): void } {
  let at = 0;
  return { now: () => at, monotonic: () => at, advance: (ms) => (at += ms) };
}

describe("the per-address request budget", () => {
  it("refuses the request past the limit with rate_limited, and counts afresh after the window", () => {
    const clock = steppedClock();
    const budget = new RequestBudget({ clock, limit: 2, message: "slow down" });
    budget.charge("a");
    budget.charge("a");
    expect(() => budget.charge("a")).toThrow(
      expect.objectContaining({ code: "rate_limited", message: "slow down" }),
    );
    budget.charge("b"); // another address has its own count
    clock.advance(60_000);
    expect(() => budget.charge("a")).not.toThrow();
  });

  it("keeps its table bounded: a newcomer waits while every address is inside its window", () => {
    const clock = steppedClock();
    const budget = new RequestBudget({ clock, limit: 10, maxEntries: 2 });
    budget.charge("a");
    budget.charge("b");
    expect(() => budget.charge("c")).toThrow(expect.objectContaining({ code: "rate_limited" }));
    clock.advance(60_000);
    expect(() => budget.charge("c")).not.toThrow();
  });
});
