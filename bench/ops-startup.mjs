// `t3-connector-ops` start-up: how long a command takes before it does any work, against a
// same-run baseline, so the figure travels between machines.
//
//   pnpm build && node bench/ops-startup.mjs        (or: pnpm bench ops-startup)
//
//   - baseline: spawn `node -e ""` to its exit;
//   - `--version`: spawn the bin to its exit (parsing the command line only);
//   - `ls` with an empty ops config: the whole command path (config, Ops, listing) with no network.
// Samples are interleaved. Before the operations were loaded lazily (issue 24) `--version` took
// 5.3–6.8× the baseline on the development machine; the target is half of that: p50 ratio ≤ 3.
// `ls` with nothing configured took 9.5× while ops loaded the read server's whole entry (HTTP,
// OAuth, the CLI) to use its tools; with the tools' own entry, loaded only when a command reads
// (issue 36), it has the same target: p50 ratio ≤ 3. It was still 3.4× while the bin linked about
// 210 modules (zod's, core's, ws); the bin now loads a bundle and ws waits for the first socket
// (docs/adr/0060): about 1.9×.
// Prints one JSON line `{"bench":"ops-startup",...}`.
import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { root } from "./lib/read-setup.mjs";
import { percentile, round, tailLabel } from "./lib/stats.mjs";
import { allPass, atMost, finishBench } from "./lib/verdict.mjs";

const SPAWNS = 40;
const WARMUP = 3;
const TIME_BUDGET_MS = 90_000;
const TARGET_VERSION_RATIO_P50 = 3;
const TARGET_LS_EMPTY_RATIO_P50 = 3;
const BIN = path.join(root, "packages/ops/bin/t3-connector-ops.js");

function timedSpawn(args, env = process.env) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { stdio: ["ignore", "ignore", "pipe"], env });
    let stderr = "";
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.once("error", reject);
    child.once("exit", (code) => {
      if (code !== 0) reject(new Error(`${args.join(" ")} exited ${code}: ${stderr.slice(0, 300)}`));
      else resolve(performance.now() - started);
    });
  });
}

const dir = await mkdtemp(path.join(tmpdir(), "t3-ops-startup-bench-"));
const samples = { baseline: [], version: [], ls: [] };
let exitCode = 0;
try {
  const configPath = path.join(dir, "ops.json");
  await writeFile(configPath, JSON.stringify({ environments: {} }), { mode: 0o600 });
  const env = { ...process.env, T3_CONNECTOR_OPS_CONFIG: configPath };
  const started = performance.now();
  for (let i = 0; i < WARMUP + SPAWNS; i++) {
    if (i >= WARMUP + 10 && performance.now() - started > TIME_BUDGET_MS) break;
    const baseline = await timedSpawn(["-e", ""]);
    const version = await timedSpawn([BIN, "--version"]);
    const ls = await timedSpawn([BIN, "ls"], env);
    if (i >= WARMUP) {
      samples.baseline.push(baseline);
      samples.version.push(version);
      samples.ls.push(ls);
    }
  }
} catch (error) {
  process.stderr.write(`ops-startup failed: ${error?.stack ?? error}\n`);
  exitCode = 1;
} finally {
  await rm(dir, { recursive: true, force: true });
}
if (exitCode !== 0) process.exit(exitCode);

const stats = (list) => ({ p50: percentile(list, 50), p99: percentile(list, 99) });
const baseline = stats(samples.baseline);
const version = stats(samples.version);
const ls = stats(samples.ls);
const tail = tailLabel(samples.version.length);
const versionRatio = version.p50 / baseline.p50;
const lsRatio = ls.p50 / baseline.p50;
process.stderr.write(
  `ops-startup: ${samples.version.length} spawns each (tail figures are the ${tail}; load average ${loadavg()
    .map((load) => load.toFixed(2))
    .join(", ")})\n` +
    `  node -e ""                   p50 ${baseline.p50.toFixed(0)} ms  p99 ${baseline.p99.toFixed(0)} ms\n` +
    `  t3-connector-ops --version   p50 ${version.p50.toFixed(0)} ms  p99 ${version.p99.toFixed(0)} ms  (${versionRatio.toFixed(2)}× baseline; target ≤ ${TARGET_VERSION_RATIO_P50}×)\n` +
    `  t3-connector-ops ls (empty)  p50 ${ls.p50.toFixed(0)} ms  p99 ${ls.p99.toFixed(0)} ms  (${lsRatio.toFixed(2)}× baseline; target ≤ ${TARGET_LS_EMPTY_RATIO_P50}×)\n`,
);
const checks = [
  atMost("versionRatioP50", round(versionRatio), TARGET_VERSION_RATIO_P50),
  atMost("lsEmptyRatioP50", round(lsRatio), TARGET_LS_EMPTY_RATIO_P50),
];
const report = {
  bench: "ops-startup",
  spawns: samples.version.length,
  tail,
  baselineP50Ms: round(baseline.p50, 1),
  versionP50Ms: round(version.p50, 1),
  versionP99Ms: round(version.p99, 1),
  lsEmptyP50Ms: round(ls.p50, 1),
  lsEmptyP99Ms: round(ls.p99, 1),
  versionRatioP50: round(versionRatio),
  lsEmptyRatioP50: round(lsRatio),
  targetVersionRatioP50: TARGET_VERSION_RATIO_P50,
  targetLsEmptyRatioP50: TARGET_LS_EMPTY_RATIO_P50,
  checks,
  pass: allPass(checks),
  loadavg1m: round(loadavg()[0] ?? 0),
};
finishBench(report);
