/**
 * What ran, from V8's own precise coverage (the call counts NODE_V8_COVERAGE collects), taken
 * through the inspector of this process so a test needs no flag: which connector source files
 * (`packages/<name>/src/…`) ran since the last take, and how many times a named function did.
 * Each take resets V8's counters, so a test takes once after warming up, runs the one call it
 * measures, and takes again. (It would spoil a coverage report of the same worker: the tiers run
 * without one.)
 */
import { Session } from "node:inspector/promises";
import { fileURLToPath } from "node:url";

export interface ExecutedCode {
  /** Connector source files with a function that ran, `<package>/src/<path>`, sorted. */
  readonly files: readonly string[];
  /** How many times the function `name` of a file ending in `fileSuffix` ran (0 when it did not). */
  calls(fileSuffix: string, name: string): number;
}

export interface CoverageProbe {
  /** What ran since the probe started or since the last take. */
  take(): Promise<ExecutedCode>;
  stop(): Promise<void>;
}

const SOURCE = /\/packages\/([^/]+)\/src\/(.+)$/;

export async function startCoverageProbe(): Promise<CoverageProbe> {
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.startPreciseCoverage", { callCount: true, detailed: false });
  return {
    async take() {
      const { result } = await session.post("Profiler.takePreciseCoverage");
      const files = new Set<string>();
      const counts = new Map<string, number>();
      for (const script of result) {
        // Node names a module by its file URL; vitest's runner by its path.
        const url = script.url.split("?")[0] as string;
        const path = url.startsWith("file://") ? fileURLToPath(url) : url;
        const source = SOURCE.exec(path);
        if (source === null || path.includes("/node_modules/")) continue;
        const file = `${source[1]}/src/${source[2]}`;
        for (const fn of script.functions) {
          // A function's first range spans its body: its count is how often it was called.
          const count = fn.ranges[0]?.count ?? 0;
          if (count === 0) continue;
          files.add(file);
          if (fn.functionName !== "") {
            const key = `${file}#${fn.functionName}`;
            counts.set(key, (counts.get(key) ?? 0) + count);
          }
        }
      }
      return {
        files: [...files].sort(),
        calls(fileSuffix, name) {
          let total = 0;
          for (const [key, count] of counts) if (key.endsWith(`${fileSuffix}#${name}`)) total += count;
          return total;
        },
      };
    },
    async stop() {
      await session.post("Profiler.stopPreciseCoverage").catch(() => undefined);
      session.disconnect();
    },
  };
}
