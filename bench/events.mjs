// T3 event → signed webhook POST received, against a same-run baseline.
//
//   pnpm build && node bench/events.mjs
//
// One sample = one run ending on a fresh thread of a simulated environment (manual clock: the run
// ends exactly when the bench advances it). From the instant the simulator commits the run's
// terminal event (a store listener registered before any stream records it):
//   - subject: the `run.completed` POST of the events service (live shell mirror, durable outbox
//     with fsync, Standard Webhooks signature) fully received by an HTTP receiver on loopback;
//   - baseline: the shell row with the completed run reaching a raw `subscribeShell` client on its
//     own socket (the raw subscribe latency: what any push must at least wait for).
// Both are measured on the same run. Target: subject p99 ≤ 50 ms. Prints one JSON line
// `{"bench":"events",...,"pass":...}` and exits 1 on a miss.
import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:http";
import { createRequire } from "node:module";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { describeSimulator, dist, root, writeReadConfig } from "./lib/read-setup.mjs";
import { round, summarize } from "./lib/stats.mjs";
import { finishBench } from "./lib/verdict.mjs";

const ITERATIONS = 200;
const WARMUP = 20;
const TIME_BUDGET_MS = 40_000;
const TARGET_P99_MS = 50;
const TERMINAL = new Set(["completed", "failed", "cancelled", "interrupted", "rolled_back"]);

const { startSimulator } = await dist("t3-sim", "index.js");
const { T3RpcClient } = await dist("core", "t3/index.js");
const { parseReadConfig } = await dist("core", "config/index.js");
const { startEventsService } = await dist("events", "index.js");
// standardwebhooks is a dependency of the events package (pnpm does not hoist it to the root).
const { Webhook } = createRequire(path.join(root, "packages/events/package.json"))("standardwebhooks");

const sim = await startSimulator({ environments: [{ alias: "alpha", seed: "empty" }], clock: "manual" });
const env = sim.environment("alpha");
const project = env.model.addProject({ title: "bench", workspaceRoot: "/tmp/bench-events" });
const work = await mkdtemp(path.join(tmpdir(), "t3-bench-events-"));
const secret = `whsec_${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64")}`;
const verifier = new Webhook(secret);

// The receiver: a POST counts once its body is in and its signature verifies.
const arrivals = new Map(); // threadId -> ms
let arrived = () => {};
const receiver = createServer((request, response) => {
  const chunks = [];
  request.on("data", (chunk) => chunks.push(chunk));
  request.on("end", () => {
    const at = performance.now();
    const body = Buffer.concat(chunks).toString("utf8");
    const event = verifier.verify(body, request.headers);
    if (event.type === "run.completed" && !arrivals.has(event.data.thread.id)) {
      arrivals.set(event.data.thread.id, at);
      arrived();
    }
    response.writeHead(204).end();
  });
});
receiver.listen(0, "127.0.0.1");
await once(receiver, "listening");
const hookUrl = `http://127.0.0.1:${receiver.address().port}/hook`;

const config = parseReadConfig(await writeReadConfig(describeSimulator(sim), work), {
  path: path.join(work, "config.json"),
});
let deliveredCount = 0;
let deliveredWake = () => {};
let ready;
const followed = new Promise((resolve) => {
  ready = resolve;
});
const service = await startEventsService({
  config,
  hookUrl,
  secret,
  stateDir: path.join(work, "state"),
  log: (line) => {
    if (line.startsWith("events: delivered ")) {
      deliveredCount += 1;
      deliveredWake();
    } else process.stderr.write(`${line}\n`);
  },
  onReady: ready,
});
await followed;

// The baseline's own socket and stream.
const raw = await T3RpcClient.connect({ baseUrl: env.url, token: env.readToken });
const rawSeen = new Map(); // threadId -> ms
let rawArrived = () => {};
let rawSubscribed;
const rawReady = new Promise((resolve) => {
  rawSubscribed = resolve;
});
const rawStream = raw.subscribeShell({
  onItem(item) {
    if (item.kind === "snapshot") rawSubscribed(); // the stream is registered on the server
    if (item.kind !== "thread.updated" || item.thread.status !== "completed") return;
    if (!rawSeen.has(item.thread.id)) {
      rawSeen.set(item.thread.id, performance.now());
      rawArrived();
    }
  },
});

await rawReady;

async function waitFor(map, key, setWaker) {
  while (!map.has(key)) await new Promise((resolve) => setWaker(resolve));
}

async function sample(index) {
  // The previous event's bookkeeping (its delivered record) is on disk before this one starts, as
  // read-wait lets the previous sample's stream close: one event's latency, not a queue's.
  while (deliveredCount < index) await new Promise((resolve) => (deliveredWake = resolve));
  const threadId = env.model.addThread({ projectId: project.id, title: `events ${index}` });
  env.model.scriptNextRun(threadId, { replyDelayMs: 10, reply: "done" });
  const outcome = await env.model.callUnary("orchestration.dispatchCommand", {
    commandId: randomUUID(),
    type: "message.dispatch",
    threadId,
    messageId: randomUUID(),
    text: "go",
    attachments: [],
    createdBy: "user",
    creationSource: "mcp",
    dispatchMode: { type: "start_immediately" },
  });
  if (outcome.kind !== "success") throw new Error(`dispatch failed: ${JSON.stringify(outcome)}`);
  let committedAt;
  const unsubscribe = env.model.store.subscribe((commit) => {
    if (committedAt !== undefined || commit.kind !== "thread" || commit.record.thread.id !== threadId) return;
    const ended = commit.events.some(
      (stored) => stored.event.type === "run.updated" && TERMINAL.has(stored.event.payload?.status),
    );
    if (ended) committedAt = performance.now();
  });
  env.clock.advance(1_000);
  await waitFor(rawSeen, threadId, (wake) => {
    rawArrived = wake;
  });
  await waitFor(arrivals, threadId, (wake) => {
    arrived = wake;
  });
  unsubscribe();
  if (committedAt === undefined) throw new Error("the run's end was never committed");
  return { subject: arrivals.get(threadId) - committedAt, baseline: rawSeen.get(threadId) - committedAt };
}

const samples = { subject: [], baseline: [] };
const started = performance.now();
try {
  for (let i = 0; i < WARMUP + ITERATIONS; i++) {
    if (i >= WARMUP && performance.now() - started > TIME_BUDGET_MS) break;
    const { subject, baseline } = await sample(i);
    if (i >= WARMUP) {
      samples.subject.push(subject);
      samples.baseline.push(baseline);
    }
  }
} catch (error) {
  process.stderr.write(`events bench failed: ${error?.stack ?? error}\n`);
  process.exitCode = 1;
} finally {
  rawStream.close();
  raw.close();
  await service.stop();
  receiver.closeAllConnections();
  receiver.close();
  await sim.close();
  await rm(work, { recursive: true, force: true });
}
if (process.exitCode === 1) process.exit(1);

const subject = summarize(samples.subject);
const baseline = summarize(samples.baseline);
const enough = samples.subject.length >= 100;
const pass = enough && subject.p99 <= TARGET_P99_MS;
process.stderr.write(
  `events: ${samples.subject.length} samples\n` +
    `  raw subscribeShell      p50 ${baseline.p50.toFixed(2)} ms  p99 ${baseline.p99.toFixed(2)} ms\n` +
    `  webhook POST received   p50 ${subject.p50.toFixed(2)} ms  p99 ${subject.p99.toFixed(2)} ms (target ≤ ${TARGET_P99_MS} ms)\n`,
);
finishBench({
  bench: "events",
  samples: samples.subject.length,
  webhookP50Ms: round(subject.p50),
  webhookP99Ms: round(subject.p99),
  webhookMaxMs: round(subject.max),
  baselineP50Ms: round(baseline.p50),
  baselineP99Ms: round(baseline.p99),
  ratioP50: round(subject.p50 / baseline.p50),
  ratioP99: round(subject.p99 / baseline.p99),
  overheadP99Ms: round(subject.p99 - baseline.p99),
  targetP99Ms: TARGET_P99_MS,
  checks: [
    {
      metric: "webhook p99 ms",
      value: round(subject.p99),
      target: `<= ${TARGET_P99_MS}`,
      pass: subject.p99 <= TARGET_P99_MS,
    },
    { metric: "samples", value: samples.subject.length, target: ">= 100", pass: enough },
  ],
  pass,
  loadavg1m: round(loadavg()[0] ?? 0),
});
