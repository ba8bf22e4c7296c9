// A fleet: t3_threads swept over 26 environments against the same sweep over 8, in one run.
//
//   pnpm build && node bench/read-fleet.mjs        (or: pnpm bench read-fleet)
//
// The 26 environments run in one simulator child process (seedBulk: 4 projects, 500 threads
// each), so serving them does not share the measured event loop, as with remote T3 servers.
//   - subject: `t3_threads {}` (every environment swept) on a read server configured with all 26;
//   - baseline: the same call on a read server configured with the first 8 of them.
// Both read servers are warmed the way a client finds them after its first call (every shell
// mirror ready), then their sweeps are interleaved. The target is on the cost per environment:
// (p50 over 26 / 26) ÷ (p50 over 8 / 8) ≤ 1.3, i.e. a fleet costs no more than 30% more per
// environment than a small setup.
// Then the cold start of a fleet: `t3-connector serve` spawned with the 26 environments (and with
// the 8), timed from the spawn to its first tool answer, `t3_threads {}` (connecting and verifying
// every environment, reading every shell over HTTP). Reported beside `node -e 0` spawned in the
// same run; no target (the first answer waits on 26 servers' HTTP answers, not on our code alone).
// Prints one JSON line `{"bench":"read-fleet",...}`.
import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import {
  dist,
  root,
  startBenchRead,
  startSimulatorChild,
  until,
  writeReadConfig,
} from "./lib/read-setup.mjs";
import { percentile, round, tailLabel } from "./lib/stats.mjs";
import { allPass, atMost, finishBench } from "./lib/verdict.mjs";

const FLEET = 26;
const SMALL = 8;
const THREADS = 500;
const ITERATIONS = 60;
const WARMUP = 3;
const COLD_SPAWNS = 5;
const TIME_BUDGET_MS = 90_000;
const MIRROR_READY_TIMEOUT_MS = 60_000;
const TARGET_PER_ENVIRONMENT_RATIO_P50 = 1.3;
// A loaded machine must not turn a slow environment into a failure while measuring.
const LIMITS = { perEnvironmentTimeoutMs: 60_000, totalTimeoutMs: 120_000 };
const BIN = path.join(root, "packages/read-server/bin/t3-connector.js");

const { t3ThreadsTool } = await dist("read-server", "tools/t3_threads.js");
const simulator = await startSimulatorChild({
  environments: FLEET,
  seed: "empty",
  bulk: { projects: 4, threads: THREADS },
});
if (simulator.environments.length !== FLEET) {
  throw new Error(`the simulator started ${simulator.environments.length} environments, not ${FLEET}`);
}
const small = simulator.environments.slice(0, SMALL);

async function sweep(read, count) {
  const started = performance.now();
  const result = await read.call("t3_threads", {});
  const ms = performance.now() - started;
  if (result.complete !== true || result.queriedEnvironments.length !== count) {
    throw new Error(`incomplete sweep over ${count}: ${JSON.stringify(result.environmentFailures)}`);
  }
  return ms;
}

/** The first sweep connects every environment and starts its shell mirror; wait until all are ready. */
async function warm(read, count) {
  await sweep(read, count);
  const { registry, mirrors: pool } = read.context;
  const connections = await Promise.all(registry.environments.map((handle) => handle.connect()));
  const mirrors = connections.map((connection) => pool.peek(connection));
  await until(() => mirrors.every((mirror) => mirror?.ready === true), MIRROR_READY_TIMEOUT_MS);
}

const frame = (message) => `${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`;
const INITIALIZE = frame({
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "fleet-bench", version: "0" },
  },
});
const FIRST_CALL =
  frame({ method: "notifications/initialized" }) +
  frame({ id: 2, method: "tools/call", params: { name: "t3_threads", arguments: {} } });

/** ms from spawning `serve` on `configPath` to its first `t3_threads {}` answer, complete over `count`. */
function coldServe(configPath, count) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [BIN, "serve"], {
      env: { ...process.env, T3_CONNECTOR_CONFIG: configPath },
      stdio: ["pipe", "pipe", "pipe"],
    });
    const killer = setTimeout(() => child.kill("SIGKILL"), 120_000);
    let stdout = "";
    let stderr = "";
    let answered;
    child.stderr.setEncoding("utf8").on("data", (chunk) => {
      stderr += chunk;
    });
    child.stdout.setEncoding("utf8").on("data", (chunk) => {
      stdout += chunk;
      for (let end = stdout.indexOf("\n"); end >= 0; end = stdout.indexOf("\n")) {
        const answer = JSON.parse(stdout.slice(0, end));
        stdout = stdout.slice(end + 1);
        if (answer.id === 1) child.stdin.write(FIRST_CALL);
        if (answer.id === 2) {
          const body = answer.result?.structuredContent;
          answered =
            body?.complete === true && body.queriedEnvironments.length === count
              ? performance.now() - started
              : new Error(`incomplete cold sweep: ${JSON.stringify(answer).slice(0, 300)}`);
          child.stdin.end();
        }
      }
    });
    child.once("error", reject);
    child.once("exit", (code) => {
      clearTimeout(killer);
      if (typeof answered === "number") resolve(answered);
      else reject(answered ?? new Error(`serve exited (${code}) before answering: ${stderr.slice(0, 500)}`));
    });
    child.stdin.write(INITIALIZE);
  });
}

function baselineSpawn() {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, ["-e", "0"], { stdio: "ignore" });
    child.once("error", reject);
    child.once("exit", () => resolve(performance.now() - started));
  });
}

const samples = { fleet: [], small: [], coldFleet: [], coldSmall: [], baseline: [] };
const reads = [];
const dir = await mkdtemp(path.join(tmpdir(), "t3-fleet-bench-"));
let exitCode = 0;
try {
  const fleetRead = await startBenchRead(simulator.environments, [t3ThreadsTool], { limits: LIMITS });
  reads.push(fleetRead);
  const smallRead = await startBenchRead(small, [t3ThreadsTool], { limits: LIMITS });
  reads.push(smallRead);
  await warm(fleetRead, FLEET);
  await warm(smallRead, SMALL);
  const started = performance.now();
  for (let i = 0; i < WARMUP + ITERATIONS; i++) {
    if (i >= WARMUP + 10 && performance.now() - started > TIME_BUDGET_MS) break;
    const smallMs = await sweep(smallRead, SMALL);
    const fleetMs = await sweep(fleetRead, FLEET);
    if (i >= WARMUP) {
      samples.small.push(smallMs);
      samples.fleet.push(fleetMs);
    }
  }
  for (const read of reads.splice(0)) await read.close();

  const fleetConfig = path.join(dir, "fleet.json");
  const smallConfig = path.join(dir, "small.json");
  await writeFile(fleetConfig, JSON.stringify(await writeReadConfig(simulator.environments, dir)), {
    mode: 0o600,
  });
  await writeFile(smallConfig, JSON.stringify(await writeReadConfig(small, dir)), { mode: 0o600 });
  for (let i = 0; i < COLD_SPAWNS; i++) {
    samples.baseline.push(await baselineSpawn());
    samples.coldSmall.push(await coldServe(smallConfig, SMALL));
    samples.coldFleet.push(await coldServe(fleetConfig, FLEET));
  }
} catch (error) {
  process.stderr.write(`read-fleet failed: ${error?.stack ?? error}\n`);
  exitCode = 1;
} finally {
  for (const read of reads) await read.close();
  await simulator.stop();
  await rm(dir, { recursive: true, force: true });
}
if (exitCode !== 0) process.exit(exitCode);

const p50 = (list) => percentile(list, 50);
const perEnvironmentRatio = p50(samples.fleet) / FLEET / (p50(samples.small) / SMALL);
const coldPerEnvironmentRatio = p50(samples.coldFleet) / FLEET / (p50(samples.coldSmall) / SMALL);
process.stderr.write(
  `read-fleet: ${samples.fleet.length} sweeps each, ${THREADS} threads per environment\n` +
    `  t3_threads over ${SMALL}             p50 ${p50(samples.small).toFixed(1)} ms (${(p50(samples.small) / SMALL).toFixed(2)} ms per environment)\n` +
    `  t3_threads over ${FLEET}            p50 ${p50(samples.fleet).toFixed(1)} ms (${(p50(samples.fleet) / FLEET).toFixed(2)} ms per environment)\n` +
    `  per environment, ${FLEET} vs ${SMALL}      ${perEnvironmentRatio.toFixed(2)}× (target ≤ ${TARGET_PER_ENVIRONMENT_RATIO_P50}×)\n` +
    `  cold serve → first t3_threads, ${SMALL} envs   p50 ${p50(samples.coldSmall).toFixed(0)} ms (${samples.coldSmall.length} spawns)\n` +
    `  cold serve → first t3_threads, ${FLEET} envs  p50 ${p50(samples.coldFleet).toFixed(0)} ms (${(coldPerEnvironmentRatio).toFixed(2)}× per environment; node -e 0 p50 ${p50(samples.baseline).toFixed(0)} ms)\n`,
);
const checks = [
  atMost("perEnvironmentRatioP50", round(perEnvironmentRatio), TARGET_PER_ENVIRONMENT_RATIO_P50),
];
const report = {
  bench: "read-fleet",
  environments: FLEET,
  smallEnvironments: SMALL,
  threadsPerEnvironment: THREADS,
  samples: samples.fleet.length,
  tail: tailLabel(samples.fleet.length),
  smallSweepP50Ms: round(p50(samples.small), 1),
  fleetSweepP50Ms: round(p50(samples.fleet), 1),
  fleetSweepP99Ms: round(percentile(samples.fleet, 99), 1),
  perEnvironmentRatioP50: round(perEnvironmentRatio),
  coldServeSmallFirstAnswerP50Ms: round(p50(samples.coldSmall), 1),
  coldServeFleetFirstAnswerP50Ms: round(p50(samples.coldFleet), 1),
  coldServeFleetFirstAnswerMaxMs: round(Math.max(...samples.coldFleet), 1),
  coldPerEnvironmentRatioP50: round(coldPerEnvironmentRatio),
  baselineSpawnP50Ms: round(p50(samples.baseline), 1),
  coldSpawns: samples.coldFleet.length,
  targetPerEnvironmentRatioP50: TARGET_PER_ENVIRONMENT_RATIO_P50,
  checks,
  pass: allPass(checks),
  loadavg1m: round(loadavg()[0] ?? 0),
};
finishBench(report);
