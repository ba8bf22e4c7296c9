import { describeCircle, importCircles, sourceImportGraph } from "@t3-connector/test-support/import-circles";
import { describe, expect, it } from "vitest";

// No two source files import each other, directly or in a loop: a circle makes a file's meaning
// depend on the order modules load, and hides which of the two is the lower layer. What both
// sides need (a type, a helper) lives in a module both import. Every import counts: `import type`
// and `import()` too, since the circle is in the reading, not only in the loading.

describe("import circles between source files", () => {
  it("has none in the packages' sources", () => {
    const graph = sourceImportGraph();
    // The walk reads the real sources (so an empty graph cannot pass).
    expect(graph.size).toBeGreaterThan(500);
    expect(graph.get("packages/oauth/src/server/page-routes.ts")).toContain(
      "packages/oauth/src/server/page-call.ts",
    );
    const circles = importCircles(graph).map((circle) => describeCircle(graph, circle));
    expect(circles, circles.join("\n")).toEqual([]);
  });

  it("finds a planted pair, a longer loop and a file that imports itself", () => {
    const graph = new Map<string, Set<string>>([
      ["a.ts", new Set(["b.ts"])],
      ["b.ts", new Set(["a.ts", "c.ts"])],
      ["c.ts", new Set(["d.ts"])],
      ["d.ts", new Set(["e.ts"])],
      ["e.ts", new Set(["c.ts"])],
      ["f.ts", new Set(["f.ts"])],
      ["g.ts", new Set(["a.ts"])],
    ]);
    expect(importCircles(graph)).toEqual([["a.ts", "b.ts"], ["c.ts", "d.ts", "e.ts"], ["f.ts"]]);
    expect(describeCircle(graph, ["a.ts", "b.ts"])).toContain("b.ts imports a.ts");
  });
});
