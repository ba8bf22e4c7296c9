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
