/**
 * The unit tier runs in one process (ARCHITECTURE.md, "Tests"): no build, no children, so it passes
 * on a fresh clone and its timings are its own. This setup file (the unit project's `setupFiles`)
 * makes every way of starting a process throw, so a unit test that spawns one fails at once and
 * says where it belongs. Node's ESM bindings of `node:child_process` follow the patched CommonJS
 * module through `syncBuiltinESMExports`, so `import { spawn } from "node:child_process"` is
 * covered as well as `require`.
 */
import { createRequire, syncBuiltinESMExports } from "node:module";

const require = createRequire(import.meta.url);
const childProcess = require("node:child_process") as Record<string, unknown>;

/** Every function of `node:child_process` that starts a process. */
export const PROCESS_STARTERS = [
  "spawn",
  "spawnSync",
  "exec",
  "execSync",
  "execFile",
  "execFileSync",
  "fork",
] as const;

const MARK = "__t3ConnectorNoProcessesInUnitTier";

export class UnitTestSpawnedAProcess extends Error {
  constructor(starter: string, command: unknown) {
    super(
      `a unit test called child_process.${starter}(${JSON.stringify(String(command))}): the unit tier runs in one ` +
        'process; name the test file *.e2e.test.ts or move it under test/e2e/ (ARCHITECTURE.md, "Tests")',
    );
    this.name = "UnitTestSpawnedAProcess";
  }
}

if (process.env.T3C_TEST_TIER === "unit" && childProcess[MARK] === undefined) {
  for (const starter of PROCESS_STARTERS) {
    childProcess[starter] = (command: unknown) => {
      throw new UnitTestSpawnedAProcess(starter, command);
    };
  }
  childProcess[MARK] = true;
  syncBuiltinESMExports();
}
