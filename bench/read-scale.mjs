// How `t3_threads` scales with the threads an environment holds: 8 environments × 2,500 and
// 8 × 10,000 threads, each size measured against a baseline taken in the same run.
//
//   pnpm build && node --expose-gc bench/read-scale.mjs      (re-runs itself with --expose-gc if needed)
//
// The environments run in a simulator child process (seedBulk: 5 projects), so serving them does
// not share the measured event loop, as with remote T3 servers. For each size:
//   - cold: the first `t3_threads {}` of a fresh read session (new registry: verification, the HTTP
//     shells, the answer), against the raw parallel fetch + `JSON.parse` of every environment's
//     shell (as many at a time as the sweep reads: FAN_OUT_CONCURRENCY), interleaved, COLD_ROUNDS
//     times, each side in a fresh Node process (bench/lib/cold-call.mjs: a restarted client, no
//     code run yet); `coldRatioToRawParallel` = cold median / raw median (target ≤ 1.5 at both
//     sizes). The same pair in a warmed-up process is reported too (`sessionColdRatioBySize`);
//   - warm: once that session's mirrors are ready, repeated `t3_threads {}` calls (p50), the two
//     sizes' sessions open side by side and their calls interleaved;
//     `warmGrowthRatio` = p50 at 10,000 / p50 at 2,500 (target ≤ 1.5: a page costs what the page
//     holds, not what the environment holds);
//   - heap: forced GCs before the session's first call and after its mirrors are ready and the
//     warm sweeps ran; the growth divided by the threads mirrored is `heapBytesPerThread`
//     (target ≤ 3,000 at each size; the larger of the two is reported).
// Prints a table on stderr, then one JSON line `{"bench":"read-scale",...}`.
import { spawnSync } from "node:child_process";
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { dist, startBenchRead, startSimulatorChild, until } from "./lib/read-setup.mjs";
import { percentile, round } from "./lib/stats.mjs";
import { allPass, atMost, finishBench } from "./lib/verdict.mjs";

if (typeof globalThis.gc !== "function") {
  // Heap figures need forced collections: run again with --expose-gc, same arguments.
  const self = fileURLToPath(import.meta.url);
  const run = spawnSync(process.execPath, ["--expose-gc", self, ...process.argv.slice(2)], {
    stdio: "inherit",
  });
  process.exit(run.status ?? 1);
}

const ENVIRONMENTS = 8;
const SIZES = [2_500, 10_000];
const COLD_ROUNDS = 5;
const WARM_SAMPLES = 100;
const WARMUP = 5;
const MIRROR_READY_TIMEOUT_MS = 120_000;
const TARGET_COLD_RATIO = 1.5;
const COLD_CALL = fileURLToPath(new URL("./lib/cold-call.mjs", import.meta.url));
// Deadlines out of the way: a shared machine can take longer than the contract's 4 s per
// environment for a cold 10,000-thread shell, and this bench measures the time, not the deadline.
const LIMITS = { perEnvironmentTimeoutMs: 60_000, totalTimeoutMs: 120_000 };
const TARGET_WARM_GROWTH = 1.5;
const TARGET_HEAP_BYTES_PER_THREAD = 3_000;

const { t3ThreadsTool } = await dist("read-server", "tools/t3_threads.js");
const { FAN_OUT_CONCURRENCY } = await dist("core", "fanout/index.js");

async function fetchShell(env, threads) {
  const response = await fetch(`${env.url}/api/orchestration/shell`, {
    headers: { authorization: `Bearer ${env.readToken}`, "x-t3-orchestration-protocol": "2" },
  });
  const shell = JSON.parse(await response.text());
  if (!Array.isArray(shell.threads) || shell.threads.length !== threads) throw new Error("unexpected shell");
}

/** Every shell fetched and parsed, FAN_OUT_CONCURRENCY at a time, nothing else. */
async function rawParallel(environments, threads) {
  const started = performance.now();
  const queue = [...environments];
  await Promise.all(
    Array.from({ length: FAN_OUT_CONCURRENCY }, async () => {
      for (let env = queue.shift(); env !== undefined; env = queue.shift()) await fetchShell(env, threads);
    }),
  );
  return performance.now() - started;
}

async function sweep(read) {
  const started = performance.now();
  const result = await read.call("t3_threads", {});
  const ms = performance.now() - started;
  if (result.complete !== true || result.queriedEnvironments.length !== ENVIRONMENTS) {
    throw new Error(`incomplete sweep: ${JSON.stringify(result.environmentFailures)}`);
  }
  if (result.threads.length === 0 || result.total === 0) throw new Error("the sweep listed nothing");
  return ms;
}

async function mirrorsOf(read) {
  const { registry, mirrors: pool } = read.context;
  if (pool === undefined) throw new Error("the read context has no shell mirrors");
  const connections = await Promise.all(registry.environments.map((handle) => handle.connect()));
  return connections.map((connection) => pool.peek(connection));
}

function heapUsed() {
  globalThis.gc();
  globalThis.gc();
  return process.memoryUsage().heapUsed;
}

/** Runs bench/lib/cold-call.mjs in a new Node process and answers the time it measured. */
async function inFreshProcess(options) {
  const { spawn } = await import("node:child_process");
  const child = spawn(process.execPath, [COLD_CALL, JSON.stringify(options)], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk) => {
    out += chunk;
  });
  const code = await new Promise((resolve) => child.once("exit", resolve));
  if (code !== 0) throw new Error(`a fresh-process ${options.mode} measurement failed (${code})`);
  return JSON.parse(out.trim().split("\n").at(-1) ?? "{}").ms;
}

/**
 * Sweeps until every environment's mirror is ready. A mirror whose connection was dropped (on a
 * loaded machine a socket can time out while eight large shells are parsed) is closed by design;
 * the next sweep reads over HTTP and starts a new one. How often that happened is reported.
 */
async function readyMirrors(read, threads) {
  for (let restarts = 0; restarts <= 3; restarts++) {
    await sweep(read);
    const mirrors = await mirrorsOf(read);
    const settled = (mirror) =>
      mirror === undefined || mirror.ready || mirror.status === "closed" || mirror.status === "failed";
    await until(() => mirrors.every(settled), MIRROR_READY_TIMEOUT_MS).catch(() => undefined);
    if (mirrors.every((mirror) => mirror?.ready === true)) return { mirrors, restarts };
    const statuses = mirrors.map((mirror) => mirror?.status ?? "none").join(", ");
    process.stderr.write(`read-scale: 8 × ${threads}: mirrors not all ready (${statuses}); sweeping again\n`);
  }
  throw new Error(`the mirrors of 8 × ${threads} never all became ready`);
}

/**
 * Cold rounds and the heap of one size; answers its figures and the measured session, left open
 * (mirrors ready) for the interleaved warm sweeps.
 */
async function measureSize(threads, simulators) {
  const simulator = await startSimulatorChild({
    environments: ENVIRONMENTS,
    seed: "empty",
    bulk: { projects: 5, threads },
  });
  simulators.push(simulator);
  const { environments } = simulator;
  await rawParallel(environments, threads); // the simulator's own first serialisation
  const cold = [];
  const raw = [];
  const processCold = [];
  const processRaw = [];
  for (let round = 0; round < COLD_ROUNDS; round++) {
    raw.push(await rawParallel(environments, threads));
    const read = await startBenchRead(environments, [t3ThreadsTool], { limits: LIMITS });
    try {
      cold.push(await sweep(read));
    } finally {
      await read.close();
    }
    // The same pair, each in a fresh process (a restarted client: no code has run yet).
    processRaw.push(await inFreshProcess({ mode: "raw", environments, threads }));
    processCold.push(await inFreshProcess({ mode: "sweep", environments, threads, limits: LIMITS }));
  }

  // The measured session: heap before its first call, then once its mirrors are ready and a few
  // sweeps built what they build (the thread indexes, the page's summaries).
  const before = heapUsed();
  const read = await startBenchRead(environments, [t3ThreadsTool], { limits: LIMITS });
  const { mirrors, restarts } = await readyMirrors(read, threads);
  for (let i = 0; i < WARMUP; i++) await sweep(read);
  const heapBytesPerThread = (heapUsed() - before) / (ENVIRONMENTS * threads);
  return {
    read,
    mirrors,
    figures: {
      threads,
      mirrorRestarts: restarts,
      coldMs: percentile(cold, 50),
      rawParallelMs: percentile(raw, 50),
      processColdMs: percentile(processCold, 50),
      processRawParallelMs: percentile(processRaw, 50),
      heapBytesPerThread,
      warm: [],
    },
  };
}

const results = [];
const simulators = [];
const sessions = [];
try {
  for (const threads of SIZES) {
    const measured = await measureSize(threads, simulators);
    sessions.push(measured);
    results.push(measured.figures);
  }
  // Warm sweeps of both sizes interleaved, so a change of load on a shared machine hits both alike.
  heapUsed(); // the cold rounds' garbage is not the warm sweeps' cost
  for (let i = 0; i < WARM_SAMPLES; i++) {
    for (const session of sessions) session.figures.warm.push(await sweep(session.read));
  }
  for (const session of sessions) {
    const now = await mirrorsOf(session.read);
    if (!now.every((mirror, index) => mirror === session.mirrors[index] && mirror?.ready === true)) {
      throw new Error("a shell mirror stopped or was replaced while measuring warm sweeps");
    }
  }
} catch (error) {
  process.stderr.write(`read-scale failed: ${error?.stack ?? error}\n`);
  process.exitCode = 1;
} finally {
  for (const session of sessions) await session.read.close();
  for (const simulator of simulators) await simulator.stop();
}
if (process.exitCode === 1) process.exit(1);
for (const size of results) {
  size.warmP50Ms = percentile(size.warm, 50);
  size.warmP99Ms = percentile(size.warm, 99);
  size.warmSamples = size.warm.length;
}

const [small, large] = results;
// The checked ratio is the restarted client's: both sides in a fresh process.
const coldRatio = (size) => size.processColdMs / size.processRawParallelMs;
const sessionColdRatio = (size) => size.coldMs / size.rawParallelMs;
const warmGrowthRatio = large.warmP50Ms / small.warmP50Ms;
const heapBytesPerThread = Math.max(small.heapBytesPerThread, large.heapBytesPerThread);
const coldRatioToRawParallel = Math.max(coldRatio(small), coldRatio(large));
process.stderr.write(
  `read-scale: ${ENVIRONMENTS} environments, cold = median of ${COLD_ROUNDS} fresh sessions\n`,
);
for (const size of results) {
  process.stderr.write(
    `  ${ENVIRONMENTS} × ${size.threads}: fresh process: cold ${size.processColdMs.toFixed(0)} ms vs raw parallel ${size.processRawParallelMs.toFixed(0)} ms ` +
      `(${coldRatio(size).toFixed(2)}×); fresh session in a warm process: ${size.coldMs.toFixed(0)} ms vs ${size.rawParallelMs.toFixed(0)} ms ` +
      `(${sessionColdRatio(size).toFixed(2)}×); warm p50 ${size.warmP50Ms.toFixed(1)} ms p99 ${size.warmP99Ms.toFixed(1)} ms ` +
      `(${size.warmSamples} samples); heap ${size.heapBytesPerThread.toFixed(0)} B/thread\n`,
  );
}
const checks = [
  ...results.map((size) =>
    atMost(
      `coldRatioToRawParallel (${ENVIRONMENTS}×${size.threads})`,
      round(coldRatio(size)),
      TARGET_COLD_RATIO,
    ),
  ),
  atMost("warmGrowthRatio", round(warmGrowthRatio), TARGET_WARM_GROWTH),
  atMost("heapBytesPerThread", Math.round(heapBytesPerThread), TARGET_HEAP_BYTES_PER_THREAD),
];
const report = {
  bench: "read-scale",
  environments: ENVIRONMENTS,
  sizes: SIZES,
  coldRounds: COLD_ROUNDS,
  coldRatioToRawParallel: round(coldRatioToRawParallel),
  coldRatioToRawParallelBySize: results.map((size) => round(coldRatio(size))),
  processColdMsBySize: results.map((size) => round(size.processColdMs, 1)),
  processRawParallelMsBySize: results.map((size) => round(size.processRawParallelMs, 1)),
  sessionColdRatioBySize: results.map((size) => round(sessionColdRatio(size))),
  coldMsBySize: results.map((size) => round(size.coldMs, 1)),
  rawParallelMsBySize: results.map((size) => round(size.rawParallelMs, 1)),
  warmP50MsBySize: results.map((size) => round(size.warmP50Ms, 2)),
  warmP99MsBySize: results.map((size) => round(size.warmP99Ms, 2)),
  warmSamples: Math.min(small.warmSamples, large.warmSamples),
  warmGrowthRatio: round(warmGrowthRatio),
  heapBytesPerThread: Math.round(heapBytesPerThread),
  heapBytesPerThreadBySize: results.map((size) => Math.round(size.heapBytesPerThread)),
  mirrorRestartsBySize: results.map((size) => size.mirrorRestarts),
  targetColdRatio: TARGET_COLD_RATIO,
  targetWarmGrowthRatio: TARGET_WARM_GROWTH,
  targetHeapBytesPerThread: TARGET_HEAP_BYTES_PER_THREAD,
  checks,
  pass: allPass(checks),
  loadavg1m: round(loadavg()[0] ?? 0),
};
finishBench(report);
