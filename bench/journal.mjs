// The journal's write cycle with 10,000 retained records, against a same-run baseline.
//
//   pnpm build && node bench/journal.mjs
//
// One sample = one write's full journal cycle: reserve → markUncertain → complete (bench/lib/
// journal-cycle.mjs, which bench/write-path.mjs reports as `journalCycleP99Ms` too). The baseline
// is a raw `writeFile + fsync` of a small file in the same directory, timed just before each write
// so both see the same disk and the same load. fsyncs are counted, not assumed (ADR 0006: 4 per
// write, plus the amortised sealing). Target: cycle p99 ≤ 15 ms (issue 14). 200 samples.
// Prints a table on stderr, then one JSON line `{"bench":"journal",...}`; exits 1 on a miss.
import { loadavg } from "node:os";
import { measureJournalCycle } from "./lib/journal-cycle.mjs";
import { round } from "./lib/stats.mjs";
import { allPass, atMost, finishBench } from "./lib/verdict.mjs";

const RECORDS = 10_000;
const SAMPLES = 200;
const TARGET_CYCLE_P99_MS = 15;

const measured = await measureJournalCycle({
  records: RECORDS,
  samples: SAMPLES,
  baseline: true,
  reopen: true,
});
const rows = [
  ["baseline writeFile+fsync", measured.baselineP50Ms, measured.baselineP99Ms],
  ["journal mutation (any of 3)", measured.mutationP50Ms, measured.mutationP99Ms],
  ["write cycle (3 mutations)", measured.journalCycleP50Ms, measured.journalCycleP99Ms],
];
const lines = [
  `journal bench: ${measured.records} retained records, ${measured.segments} sealed segments, ${measured.samples} samples, ${measured.fsyncsPerWrite} fsyncs per write`,
  `${"measure".padEnd(30)}${"p50 ms".padStart(10)}${"p99 ms".padStart(10)}`,
  ...rows.map(
    ([name, p50, p99]) => `${name.padEnd(30)}${p50.toFixed(2).padStart(10)}${p99.toFixed(2).padStart(10)}`,
  ),
  `reopen with ${measured.reopenedRecords} records: ${measured.reopenMs} ms`,
];
process.stderr.write(`${lines.join("\n")}\n`);
const checks = [atMost("journalCycleP99Ms", measured.journalCycleP99Ms, TARGET_CYCLE_P99_MS)];
finishBench({
  bench: "journal",
  records: measured.records,
  segments: measured.segments,
  samples: measured.samples,
  journalCycleP50Ms: measured.journalCycleP50Ms,
  journalCycleP99Ms: measured.journalCycleP99Ms,
  fsyncsPerWrite: measured.fsyncsPerWrite,
  mutationP50Ms: measured.mutationP50Ms,
  mutationP99Ms: measured.mutationP99Ms,
  baselineP50Ms: measured.baselineP50Ms,
  baselineP99Ms: measured.baselineP99Ms,
  reopenMs: measured.reopenMs,
  reopenedRecords: measured.reopenedRecords,
  targetCycleP99Ms: TARGET_CYCLE_P99_MS,
  // Other processes share the disk and CPUs: read the absolute numbers with the baseline and this.
  loadAverage1m: round(loadavg()[0] ?? 0),
  checks,
  pass: allPass(checks) && measured.reopenedRecords === measured.records,
});
