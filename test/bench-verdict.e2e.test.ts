/**
 * Every benchmark ends with bench/lib/verdict.mjs's `finishBench`: a missed target must make the
 * process exit non-zero (so `pnpm bench` fails), and a met one exit 0. Checked on a real process,
 * since the exit code is the behaviour.
 */
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const verdictUrl = new URL("../bench/lib/verdict.mjs", import.meta.url).href;
const benchDir = new URL("../bench/", import.meta.url);

function finish(report: unknown) {
  const script = `import { finishBench } from ${JSON.stringify(verdictUrl)}; finishBench(${JSON.stringify(report)});`;
  return spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
}

describe("a benchmark's verdict", () => {
  it("exits 0 and prints the report line when the target is met", () => {
    const run = finish({ bench: "demo", pass: true, p99Ms: 3 });
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ bench: "demo", pass: true, p99Ms: 3 });
  });

  it("exits 1 and says so on stderr when the target is missed", () => {
    const run = finish({ bench: "demo", pass: false });
    expect(run.status).toBe(1);
    expect(JSON.parse(run.stdout)).toEqual({ bench: "demo", pass: false });
    expect(run.stderr).toContain("demo: target MISSED");
  });

  it("exits 1 when a report carries no verdict at all", () => {
    expect(finish({ bench: "demo" }).status).toBe(1);
  });

  it("checks each target as value ≤ target, and an unmeasured value never passes", () => {
    const script = `import { allPass, atMost } from ${JSON.stringify(verdictUrl)};
      const checks = [atMost("a", 3, 5), atMost("b", 6, 5), atMost("c", null, 5), atMost("d", Number.NaN, 5)];
      process.stdout.write(JSON.stringify({ checks, all: allPass(checks), met: allPass([checks[0]]), none: allPass([]) }));`;
    const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
    expect(JSON.parse(run.stdout)).toEqual({
      checks: [
        { metric: "a", value: 3, target: "≤ 5", pass: true },
        { metric: "b", value: 6, target: "≤ 5", pass: false },
        { metric: "c", value: null, target: "≤ 5", pass: false },
        { metric: "d", value: null, target: "≤ 5", pass: false },
      ],
      all: false,
      met: true,
      none: false,
    });
  });

  it("is how every benchmark in bench/ ends", () => {
    const benches = readdirSync(benchDir).filter((name) => name.endsWith(".mjs"));
    expect(benches.length).toBeGreaterThanOrEqual(5);
    for (const name of benches) {
      const source = readFileSync(new URL(name, benchDir), "utf8");
      expect(source, name).toContain('from "./lib/verdict.mjs"');
      expect(source, name).toMatch(/finishBench\(/);
      expect(source, name).not.toContain("JSON.stringify(report)");
    }
  });
});
