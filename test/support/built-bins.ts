import { fileURLToPath } from "node:url";

/**
 * Where a test finds what it runs from the build (`dist/`, which the e2e, browser and pack tiers'
 * global setup builds once). The unit tier builds nothing, so a unit test that spawned a bin would
 * run yesterday's code, or none: it is refused here by name instead (the unit project sets
 * T3C_TEST_TIER=unit). A test that needs the build is named `*.e2e.test.ts` or lives in a `test/e2e/`
 * or `test/browser/` folder (ARCHITECTURE.md, "Tests").
 */
const BINS = {
  "t3-connector": "packages/read-server/bin/t3-connector.js",
  "t3-connector-write": "packages/write-gate/bin/t3-connector-write.js",
  "t3-connector-ops": "packages/ops/bin/t3-connector-ops.js",
  "t3-sim": "packages/t3-sim/bin/t3-sim.js",
} as const;

export type BuiltBinName = keyof typeof BINS;

const ROOT = new URL("../../", import.meta.url);

/** The absolute path of one of the four CLIs, as users run it (`node <path>`). */
export function builtBin(name: BuiltBinName): string {
  return builtFile(BINS[name]);
}

/** The absolute path of a repository file that runs the built code (a launcher script, the demo). */
export function builtFile(pathFromRepoRoot: string): string {
  if (process.env.T3C_TEST_TIER === "unit") {
    throw new Error(
      `a unit test tried to run ${pathFromRepoRoot}, which needs the build: name the test file *.e2e.test.ts ` +
        "or move it under test/e2e/, where the build runs first",
    );
  }
  return fileURLToPath(new URL(pathFromRepoRoot, ROOT));
}
