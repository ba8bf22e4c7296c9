import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import {
  crossingsOf,
  dependencyPackages,
  dependencyProblems,
  documentedEdges,
  documentedPackages,
  type Edge,
  edgeProblems,
  expectedOverride,
  type RealEdge,
  ROOT,
  realEdges,
  repoCrossings,
  specifiersOf,
  workspacePackages,
} from "@t3-connector/test-support/architecture-map";
import { describe, expect, it } from "vitest";

// ARCHITECTURE.md's tables are the map a newcomer reads first, so they are checked against the code:
// every package, every import of one package by another (static and dynamic, in `src`), each
// package's `dependencies`, and the lint override that refuses everything else. A failure names the
// row, dependency or override to add or remove. `UPDATE_ARCHITECTURE_LINT=1` rewrites the package
// overrides of biome.json from the table (after the table itself is right).

const markdown = readFileSync(path.join(ROOT, "ARCHITECTURE.md"), "utf8");
const packages = workspacePackages();
const documented = documentedEdges(markdown);
const real = realEdges(packages);

interface Override {
  includes?: string[];
  linter?: { rules?: { style?: { noRestrictedImports?: unknown } } };
}
const BIOME = path.join(ROOT, "biome.json");
const biome = JSON.parse(readFileSync(BIOME, "utf8")) as { overrides: Override[] };
const isPackageOverride = (override: Override, name?: string) =>
  override.linter?.rules?.style?.noRestrictedImports !== undefined &&
  override.includes?.length === 1 &&
  (name === undefined
    ? /^packages\/[a-z0-9-]+\/src\/\*\*$/.test(override.includes[0] ?? "")
    : override.includes[0] === `packages/${name}/src/**`);

if (process.env.UPDATE_ARCHITECTURE_LINT === "1") {
  const others = biome.overrides.filter((override) => !isPackageOverride(override));
  biome.overrides = [...others, ...packages.map((name) => expectedOverride(name, packages, documented))];
  writeFileSync(BIOME, `${JSON.stringify(biome, null, 2)}\n`);
}

describe("ARCHITECTURE.md is the map of the packages", () => {
  it("lists every workspace package, and only those", () => {
    expect(
      documentedPackages(markdown),
      'ARCHITECTURE.md, "## Packages and what each may import": one row per folder of packages/',
    ).toEqual(packages);
  });

  it("documents every import edge between packages, and only the real ones", () => {
    const problems = edgeProblems(documented, real);
    expect(problems, problems.join("\n")).toEqual([]);
  });

  it("has each package's workspace dependencies match its documented edges", () => {
    const problems = packages.flatMap((name) =>
      dependencyProblems(name, documented, dependencyPackages(name)),
    );
    expect(problems, problems.join("\n")).toEqual([]);
  });

  it("has no source import reach into another package but through its declared exports, by name or by path", () => {
    const problems = repoCrossings(packages).map((crossing) => crossing.problem);
    expect(problems, problems.join("\n")).toEqual([]);
  });

  it("has biome.json refuse, per package, every import the table does not allow", () => {
    const problems: string[] = [];
    for (const name of packages) {
      const overrides = biome.overrides.filter((override) => isPackageOverride(override, name));
      const expected = expectedOverride(name, packages, documented);
      if (overrides.length !== 1 || JSON.stringify(overrides[0]) !== JSON.stringify(expected)) {
        problems.push(
          `biome.json needs exactly one override for packages/${name}/src/** equal to ${JSON.stringify(expected)} ` +
            "(run UPDATE_ARCHITECTURE_LINT=1 pnpm exec vitest run --project unit test/architecture-map.test.ts)",
        );
      }
    }
    const strays = biome.overrides.filter(
      (override) =>
        override.linter?.rules?.style?.noRestrictedImports !== undefined && !isPackageOverride(override),
    );
    if (strays.length > 0) {
      problems.push(
        `biome.json restricts imports outside the per-package overrides (a later override replaces an earlier one's list): ${JSON.stringify(strays.map((override) => override.includes))}`,
      );
    }
    expect(problems, problems.join("\n")).toEqual([]);
  });
});

describe("the map check itself", () => {
  // A table that matches today's code exactly, so these cases test the check, not today's drift.
  const inSync: Edge[] = real.map(({ seenAt: _seenAt, ...found }) => found);
  const edge = (from: string, to: string, entries: Edge["entries"] = new Set(["."])): RealEdge => ({
    from,
    to,
    entries,
    how: new Set(["static"]),
    seenAt: [`packages/${from}/src/x.ts:1`],
  });

  it("sees the edges a reader needs, the dynamic ones included", () => {
    const keys = real.map((found) => `${found.from} → ${found.to} ${[...found.how].sort().join("+")}`);
    expect(keys).toEqual(
      expect.arrayContaining(["read-server → oauth static", "write-gate → write-bridge dynamic"]),
    );
  });

  it("fails when a documented row is removed, naming the row to add back", () => {
    const withoutOauth = inSync.filter((row) => !(row.from === "read-server" && row.to === "oauth"));
    const problems = edgeProblems(withoutOauth, real);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain("has no read-server → oauth row");
    expect(problems[0]).toContain("| `read-server` | `oauth` | `.` | static |");
  });

  it("fails when an import has no row, naming the file and the row", () => {
    const problems = edgeProblems(inSync, [
      ...real,
      edge("read-server", "write-engine", new Set(["relay-contract"])),
    ]);
    expect(problems).toEqual([
      expect.stringContaining(
        'packages/read-server/src/x.ts:1) but ARCHITECTURE.md, "### Import edges" has no read-server → write-engine row: ' +
          "add the row | `read-server` | `write-engine` | `relay-contract` | static |",
      ),
    ]);
  });

  it("fails when a row names an edge the code no longer has", () => {
    const problems = edgeProblems([...inSync, edge("events", "oauth")], real);
    expect(problems).toEqual([
      expect.stringContaining("remove the row | `events` | `oauth` | `.` | static |"),
    ]);
  });

  it("fails when an edge uses an entry its row does not list", () => {
    const widened = real.map((found) =>
      found.from === "ops" && found.to === "write-engine"
        ? { ...found, entries: new Set([...(found.entries as Set<string>), "journal"]) }
        : found,
    );
    expect(edgeProblems(inSync, widened)).toEqual([
      expect.stringContaining(
        "ops → write-engine uses the entries `actions`, `capabilities`, `engine`, `journal`",
      ),
    ]);
  });

  it("fails when a dependency and the table disagree", () => {
    expect(dependencyProblems("events", inSync, ["core", "oauth"])).toEqual([
      expect.stringContaining("remove the dependency"),
    ]);
    expect(dependencyProblems("events", inSync, [])).toEqual([
      expect.stringContaining('"@t3-connector/core": "workspace:*"'),
    ]);
  });
});

describe("the crossing check itself", () => {
  // A file planted in read-server's sources, checked by the same function as the real ones.
  const PLANTED = "packages/read-server/src/http/planted.ts";
  const plant = (code: string) => crossingsOf(PLANTED, specifiersOf(code), packages);

  it.each([
    [
      'import { x } from "../../../write-engine/src/journal/journal-store.js";',
      "packages/write-engine/src/journal/journal-store.js",
    ],
    ['export { x } from "../../../core/src/t3/rpc/exit.js";', "packages/core/src/t3/rpc/exit.js"],
    ['const m = await import("../../../oauth/src/index.js");', "packages/oauth/src/index.js"],
    [
      'import type { X } from "../../../write-gate/src/lease/lease-keeper.js";',
      "packages/write-gate/src/lease/lease-keeper.js",
    ],
  ])("refuses a relative import of another package's file: %s", (code, target) => {
    expect(plant(code)).toEqual([
      expect.objectContaining({
        at: `${PLANTED}:1`,
        problem: expect.stringContaining(`imports ${target} by a relative path, a file of the`),
      }),
    ]);
  });

  it("refuses a package name whose subpath the package does not export (the journal is the engine's own)", () => {
    // Spelled in two parts, so the engine-boundary test's scan of the sources does not meet it here.
    const journal = ["@t3-connector/write-engine", "journal"].join("/");
    expect(plant(`import { openJournal } from "${journal}";`)).toEqual([
      expect.objectContaining({
        problem: expect.stringContaining("packages/write-engine/package.json does not export"),
      }),
    ]);
    expect(plant('import { x } from "@t3-connector/core/src/config/index.js";')).toHaveLength(1);
  });

  it("lets through the package's own files, declared exports and outside packages", () => {
    expect(
      plant(
        [
          'import { a } from "./bearer-auth.js";',
          'import { b } from "../cli/args.js";',
          'import { c } from "@t3-connector/core/config";',
          'import { d } from "@t3-connector/write-engine/relay-contract";',
          'import { e } from "hono";',
        ].join("\n"),
      ),
    ).toEqual([]);
  });
});
