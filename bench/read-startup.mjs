// `t3-connector serve` start-up: spawn to the first tool answer, against a same-run baseline.
//
//   pnpm build && node bench/read-startup.mjs
//
//   - subject: spawn `node packages/read-server/bin/t3-connector.js serve` (built dist) with
//     T3_CONNECTOR_CONFIG naming a config for two simulated environments (run in a child process),
//     write `initialize` at once, stop the clock at its response line on stdout;
//   - baseline: spawn `node -e 0` to its exit (the cost of starting any Node process here).
// serve verifies the environments in the background and every tool call waits for that check, so
// the answer to `initialize` alone would hide the verification: after it the bench sends
// `tools/list` and one `t3_ambientes` call, and the target is on that first tool answer:
// `firstCallP99Ms` ≤ 250 ms (spawn → initialize → first tool answer), from ≥ 100 spawns (fewer only
// if the time budget ran out, and then the tail is labelled as the maximum of what was measured).
// The cost the shape adds, as a ratio that travels between machines (issue 36): the first tool
// answer's p50 against the same run's `node -e 0` p50, target ≤ 2× (it was 2.84× before the read
// CLI loaded each command with import() and the stdio server from one bundled chunk).
// The floor under that ratio is measured in the same run: packages/read-server/scripts/sdk-floor.mjs,
// bundled here the way the bin is, loads only the MCP SDK's server and stdio transport and zod,
// serves one tool and answers the same three messages. Its own ratio to `node -e 0` is reported,
// not checked: it says how much of the start-up no change of ours can remove on this Node, and it
// is above 2× on every Node line measured (docs/adr/0060). What is ours is the first answer's cost
// above that floor, checked as `firstCallOverFloorP50`: serve's first tool answer p50 against the
// floor's first tool answer p50, target ≤ 1.5× (it was 2.1–2.5× before the read tools' JSON
// Schemas were converted ahead of time and the T3 client left fetch, and 1.5–1.64× before stdio
// serve loaded each read tool at its first call and read a bare `serve` without commander).
// Samples are interleaved.
// Prints one JSON line `{"bench":"read-startup",...}`.
import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { root, startSimulatorChild, writeReadConfig } from "./lib/read-setup.mjs";
import { percentile, round, tailLabel } from "./lib/stats.mjs";
import { allPass, atMost, finishBench } from "./lib/verdict.mjs";

const SPAWNS = 100;
const WARMUP = 3;
const TIME_BUDGET_MS = 120_000;
const TARGET_P99_MS = 250;
const TARGET_FIRST_CALL_RATIO_P50 = 2;
const TARGET_FIRST_CALL_OVER_FLOOR_P50 = 1.5;
const BIN = path.join(root, "packages/read-server/bin/t3-connector.js");

const frame = (message) => `${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`;
const AFTER_INITIALIZE =
  frame({ method: "notifications/initialized" }) +
  frame({ id: 2, method: "tools/list" }) +
  frame({ id: 3, method: "tools/call", params: { name: "t3_ambientes", arguments: {} } });

const INITIALIZE = `${JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "read-bench", version: "0.0.0" },
  },
})}\n`;

function baselineSpawn() {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, ["-e", "0"], { stdio: "ignore" });
    child.once("error", reject);
    child.once("exit", () => resolve(performance.now() - started));
  });
}

/** Bundles the SDK floor script into `dir` (as the read CLI is bundled) and returns its path. */
async function bundleFloor(dir) {
  const { build } = await import("rolldown");
  const file = path.join(dir, "sdk-floor.bundle.mjs");
  await build({
    input: path.join(root, "packages/read-server/scripts/sdk-floor.mjs"),
    platform: "node",
    logLevel: "warn",
    output: { file, format: "esm" },
  });
  return file;
}

/** Resolves with `{initialize, list, call}`: ms from spawn to each answer of `node <args>`. */
function serveSpawn(configPath, args = [BIN, "serve"]) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, {
      env: { ...process.env, T3_CONNECTOR_CONFIG: configPath },
      stdio: ["pipe", "pipe", "pipe"],
    });
    const answeredAt = {};
    let failure;
    let stdout = "";
    let stderr = "";
    const killer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    child.stdout.setEncoding("utf8");
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    const onAnswer = (answer) => {
      const at = performance.now() - started;
      if (!answer.result || (answer.id === 3 && answer.result.isError)) {
        failure = new Error(`unexpected answer: ${JSON.stringify(answer).slice(0, 300)}`);
        child.stdin.end();
        return;
      }
      if (answer.id === 1) {
        answeredAt.initialize = at;
        child.stdin.write(AFTER_INITIALIZE);
      } else if (answer.id === 2) {
        answeredAt.list = at;
      } else if (answer.id === 3) {
        answeredAt.call = at;
        child.stdin.end(); // the client goes away: serve must end by itself
      }
    };
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
      for (let end = stdout.indexOf("\n"); end >= 0; end = stdout.indexOf("\n")) {
        const line = stdout.slice(0, end);
        stdout = stdout.slice(end + 1);
        onAnswer(JSON.parse(line));
      }
    });
    child.once("error", reject);
    child.once("exit", (code) => {
      clearTimeout(killer);
      if (failure !== undefined) reject(failure);
      else if (answeredAt.call === undefined)
        reject(new Error(`serve exited (${code}) before answering: ${stderr.slice(0, 500)}`));
      else resolve(answeredAt);
    });
    child.stdin.write(INITIALIZE);
  });
}

const simulator = await startSimulatorChild({ environments: 2, seed: "demo" });
const dir = await mkdtemp(path.join(tmpdir(), "t3-startup-bench-"));
const samples = { serve: [], list: [], call: [], baseline: [], floor: [] };
let exitCode = 0;
try {
  const configPath = path.join(dir, "config.json");
  await writeFile(configPath, JSON.stringify(await writeReadConfig(simulator.environments, dir)), {
    mode: 0o600,
  });
  const floorScript = await bundleFloor(dir);
  const started = performance.now();
  for (let i = 0; i < WARMUP + SPAWNS; i++) {
    if (i >= WARMUP + 10 && performance.now() - started > TIME_BUDGET_MS) break;
    const baselineMs = await baselineSpawn();
    const served = await serveSpawn(configPath);
    const floor = await serveSpawn(configPath, [floorScript]);
    if (i >= WARMUP) {
      samples.baseline.push(baselineMs);
      samples.serve.push(served.initialize);
      samples.list.push(served.list);
      samples.call.push(served.call);
      samples.floor.push(floor.call);
    }
  }
} catch (error) {
  process.stderr.write(`read-startup failed: ${error?.stack ?? error}\n`);
  exitCode = 1;
} finally {
  await simulator.stop();
  await rm(dir, { recursive: true, force: true });
}
if (exitCode !== 0) process.exit(exitCode);

const stats = (list) => ({ p50: percentile(list, 50), p99: percentile(list, 99) });
const serve = stats(samples.serve);
const baseline = stats(samples.baseline);
const list = stats(samples.list);
const call = stats(samples.call);
const floor = stats(samples.floor);
const tail = tailLabel(samples.call.length);
process.stderr.write(
  `read-startup: ${samples.serve.length} spawns each (tail figures are the ${tail}; load average ${loadavg()
    .map((load) => load.toFixed(2))
    .join(", ")})\n` +
    `  node -e 0 (spawn to exit)            p50 ${baseline.p50.toFixed(0)} ms  p99 ${baseline.p99.toFixed(0)} ms\n` +
    `  t3-connector serve (to initialize)   p50 ${serve.p50.toFixed(0)} ms  p99 ${serve.p99.toFixed(0)} ms\n` +
    `    then tools/list answered at        p50 ${list.p50.toFixed(0)} ms  p99 ${list.p99.toFixed(0)} ms\n` +
    `    then t3_ambientes answered at      p50 ${call.p50.toFixed(0)} ms  p99 ${call.p99.toFixed(0)} ms (first tool answer; target p99 ≤ ${TARGET_P99_MS} ms)\n` +
    `    first tool answer / node -e 0      p50 ${(call.p50 / baseline.p50).toFixed(2)}× (target ≤ ${TARGET_FIRST_CALL_RATIO_P50}×)\n` +
    `  SDK floor (bundled, to its first tool answer) p50 ${floor.p50.toFixed(0)} ms  p99 ${floor.p99.toFixed(0)} ms  ` +
    `(${(floor.p50 / baseline.p50).toFixed(2)}× node -e 0)\n` +
    `    first tool answer / SDK floor     p50 ${(call.p50 / floor.p50).toFixed(2)}× (target ≤ ${TARGET_FIRST_CALL_OVER_FLOOR_P50}×)\n`,
);
const checks = [
  atMost(`firstCallP99Ms (${tail})`, round(call.p99, 1), TARGET_P99_MS),
  atMost("firstCallRatioP50", round(call.p50 / baseline.p50), TARGET_FIRST_CALL_RATIO_P50),
  atMost("firstCallOverFloorP50", round(call.p50 / floor.p50), TARGET_FIRST_CALL_OVER_FLOOR_P50),
];
const report = {
  bench: "read-startup",
  node: process.version,
  spawns: samples.serve.length,
  tail,
  serveP50Ms: round(serve.p50, 1),
  serveP99Ms: round(serve.p99, 1),
  firstListP50Ms: round(list.p50, 1),
  firstListP99Ms: round(list.p99, 1),
  firstCallP50Ms: round(call.p50, 1),
  firstCallP99Ms: round(call.p99, 1),
  baselineP50Ms: round(baseline.p50, 1),
  baselineP99Ms: round(baseline.p99, 1),
  ratioP50: round(serve.p50 / baseline.p50),
  ratioP99: round(serve.p99 / baseline.p99),
  firstCallRatioP50: round(call.p50 / baseline.p50),
  sdkFloorP50Ms: round(floor.p50, 1),
  sdkFloorP99Ms: round(floor.p99, 1),
  sdkFloorRatioP50: round(floor.p50 / baseline.p50),
  firstCallOverFloorP50: round(call.p50 / floor.p50),
  targetFirstCallRatioP50: TARGET_FIRST_CALL_RATIO_P50,
  targetFirstCallOverFloorP50: TARGET_FIRST_CALL_OVER_FLOOR_P50,
  targetFirstCallP99Ms: TARGET_P99_MS,
  checks,
  pass: allPass(checks),
  loadavg1m: round(loadavg()[0] ?? 0),
};
finishBench(report);
