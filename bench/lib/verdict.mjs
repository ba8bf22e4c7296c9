// Every benchmark ends here: it prints its one JSON report line on stdout, and a report whose
// target was missed (`pass` not exactly true, a missing verdict included) makes the process exit
// non-zero, so `pnpm bench` (and CI) fails instead of printing a miss and exiting 0.
// Sets process.exitCode rather than exiting, so the bench's own cleanup (finally blocks) still runs.

/** The exit code a report earns: 0 only when it says its target was met. */
export function benchExitCode(report) {
  return report?.pass === true ? 0 : 1;
}

/** Prints the report line and sets the exit code from its verdict. */
export function finishBench(report) {
  process.stdout.write(`${JSON.stringify(report)}\n`);
  if (benchExitCode(report) !== 0) {
    process.stderr.write(`${report?.bench ?? "benchmark"}: target MISSED\n`);
    process.exitCode = 1;
  }
}

/**
 * One target of a report: `value` must be at most `target`. Reports list theirs as `checks`, which
 * `pnpm bench` prints as its table (bench, metric, value, target, pass); a value that could not be
 * measured (null, NaN) never passes.
 */
export function atMost(metric, value, target) {
  const measured = typeof value === "number" && Number.isFinite(value);
  return { metric, value: measured ? value : null, target: `≤ ${target}`, pass: measured && value <= target };
}

/** True when every check passed (and there is at least one). */
export function allPass(checks) {
  return checks.length > 0 && checks.every((check) => check.pass === true);
}
