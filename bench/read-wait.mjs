// t3_aguardar_thread wake-up latency, against a same-run baseline.
//
//   pnpm build && node bench/read-wait.mjs
//
// One sample = from the instant the simulator commits a run's terminal event (a store listener
// registered before any stream records it) to the moment the result is in hand:
//   - subject: the t3_aguardar_thread result reaching an MCP SDK client (in-memory transport);
//   - baseline: the same `run.updated` event reaching a raw `subscribeThread` client on its own socket.
// Subject and baseline samples are interleaved on fresh threads so both see the same load. The
// simulator runs a manual clock: the run ends exactly when the bench advances it, after the
// waiting side is subscribed. Target: subject p99 ≤ 20 ms. Prints one JSON line `{"bench":"read-wait",...}`.
import { loadavg } from "node:os";
import { describeSimulator, dist, startBenchRead, until } from "./lib/read-setup.mjs";
import { percentile, round, tailLabel } from "./lib/stats.mjs";
import { allPass, atMost, finishBench } from "./lib/verdict.mjs";

const ITERATIONS = 300;
const WARMUP = 20;
const TIME_BUDGET_MS = 40_000;
const TARGET_P99_MS = 20;
const TERMINAL = new Set(["completed", "failed", "cancelled", "interrupted", "rolled_back"]);

const { startSimulator } = await dist("t3-sim", "index.js");
const { T3RpcClient } = await dist("core", "t3/index.js");
const { t3AguardarThreadTool } = await dist("read-server", "tools/t3_aguardar_thread.js");

const sim = await startSimulator({ environments: [{ alias: "alpha", seed: "empty" }], clock: "manual" });
const env = sim.environment("alpha");
const project = env.model.addProject({ title: "bench", workspaceRoot: "/tmp/bench-wait" });
const read = await startBenchRead(describeSimulator(sim), [t3AguardarThreadTool]);
const raw = await T3RpcClient.connect({ baseUrl: env.url, token: env.readToken });

let commandCounter = 0;
async function threadWithHeldRun(index) {
  const threadId = env.model.addThread({ projectId: project.id, title: `wait ${index}` });
  env.model.scriptNextRun(threadId, { replyDelayMs: 10, reply: "done" });
  const outcome = await env.model.callUnary("orchestration.dispatchCommand", {
    commandId: `bench-${++commandCounter}`,
    type: "message.dispatch",
    threadId,
    messageId: `bench-msg-${commandCounter}`,
    text: "go",
    attachments: [],
    createdBy: "user",
    creationSource: "mcp",
    dispatchMode: { type: "start_immediately" },
  });
  if (outcome.kind !== "success") throw new Error(`dispatch failed: ${JSON.stringify(outcome)}`);
  return threadId;
}

/** Records when the terminal event of `threadId` is committed, before any stream sends it. */
function terminalCommitTime(threadId) {
  const marker = { at: undefined };
  const unsubscribe = env.model.store.subscribe((commit) => {
    if (marker.at !== undefined || commit.kind !== "thread" || commit.record.thread.id !== threadId) return;
    const ended = commit.events.some(
      (stored) => stored.event.type === "run.updated" && TERMINAL.has(stored.event.payload?.status),
    );
    if (ended) marker.at = performance.now();
  });
  return { marker, unsubscribe };
}

async function sampleWait(index) {
  // The previous sample's stream is released by the simulator once its Interrupt arrives.
  await until(() => env.model.store.listenerCount === 0);
  const threadId = await threadWithHeldRun(index);
  const { marker, unsubscribe } = terminalCommitTime(threadId);
  const base = env.model.store.listenerCount;
  const pending = read.call("t3_aguardar_thread", { environment: "alpha", threadId, timeoutMs: 5_000 });
  await until(() => env.model.store.listenerCount === base + 1);
  env.clock.advance(1_000);
  const result = await pending;
  const at = performance.now();
  unsubscribe();
  if (result.returnReason !== "terminal" || marker.at === undefined) {
    throw new Error(`unexpected wait result: ${JSON.stringify(result)}`);
  }
  return at - marker.at;
}

async function sampleRaw(index) {
  // The previous sample's stream is released by the simulator once its Interrupt arrives.
  await until(() => env.model.store.listenerCount === 0);
  const threadId = await threadWithHeldRun(index);
  const { marker, unsubscribe } = terminalCommitTime(threadId);
  const base = env.model.store.listenerCount;
  let seen;
  const arrived = new Promise((resolve) => {
    seen = resolve;
  });
  const subscription = raw.subscribeThread({
    threadId,
    onItem(item) {
      if (
        item.kind === "event" &&
        item.event.type === "run.updated" &&
        TERMINAL.has(item.event.payload?.status)
      ) {
        seen(performance.now());
      }
    },
  });
  await until(() => env.model.store.listenerCount === base + 1);
  env.clock.advance(1_000);
  const at = await arrived;
  subscription.close();
  unsubscribe();
  return at - marker.at;
}

const samples = { wait: [], raw: [] };
const started = performance.now();
try {
  for (let i = 0; i < WARMUP + ITERATIONS; i++) {
    if (i >= WARMUP && performance.now() - started > TIME_BUDGET_MS) break;
    const rawMs = await sampleRaw(2 * i);
    const waitMs = await sampleWait(2 * i + 1);
    if (i >= WARMUP) {
      samples.raw.push(rawMs);
      samples.wait.push(waitMs);
    }
  }
} catch (error) {
  process.stderr.write(`read-wait failed: ${error?.stack ?? error}\n`);
  process.exit(1);
} finally {
  raw.close();
  await read.close();
  await sim.close();
}

const stats = (list) => ({ p50: percentile(list, 50), p99: percentile(list, 99), max: Math.max(...list) });
const wait = stats(samples.wait);
const baseline = stats(samples.raw);
process.stderr.write(
  `read-wait: ${samples.wait.length} samples each\n` +
    `  raw subscribeThread   p50 ${baseline.p50.toFixed(2)} ms  p99 ${baseline.p99.toFixed(2)} ms\n` +
    `  t3_aguardar_thread    p50 ${wait.p50.toFixed(2)} ms  p99 ${wait.p99.toFixed(2)} ms (target ≤ ${TARGET_P99_MS} ms)\n`,
);
const checks = [atMost(`waitP99Ms (${tailLabel(samples.wait.length)})`, round(wait.p99), TARGET_P99_MS)];
const report = {
  bench: "read-wait",
  samples: samples.wait.length,
  waitP50Ms: round(wait.p50),
  waitP99Ms: round(wait.p99),
  waitMaxMs: round(wait.max),
  baselineP50Ms: round(baseline.p50),
  baselineP99Ms: round(baseline.p99),
  ratioP50: round(wait.p50 / baseline.p50),
  ratioP99: round(wait.p99 / baseline.p99),
  overheadP99Ms: round(wait.p99 - baseline.p99),
  targetP99Ms: TARGET_P99_MS,
  checks,
  pass: allPass(checks),
  loadavg1m: round(loadavg()[0] ?? 0),
};
finishBench(report);
