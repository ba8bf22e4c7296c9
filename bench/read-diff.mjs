// t3_diff's first page of a large thread diff, against the raw RPC measured in the same run.
//
//   pnpm build && node bench/read-diff.mjs
//
// The simulator runs in its own process (bench/lib/sim-child.mjs) with one thread whose run
// added 2,000 files of about 2.6 KB (a 5 MB diff). Samples interleave:
//   - baseline: `orchestration.getFullThreadDiff` on a raw T3RpcClient socket (the answer decoded);
//   - subject: `t3_diff {scope: "thread"}` through an MCP SDK client (in-memory transport): the
//     thread located, its projection read, the same RPC, the diff parsed and its first page cut.
// Targets: subject p50 ≤ 1.5× baseline p50, and the measured process's resident memory, at its
// peak during one subject call that starts after a full collection, grows by less than 3× the
// diff's size (the median of five such calls; the raw RPC's own growth is reported beside it).
// Prints one JSON line `{"bench":"read-diff",...}`.
import { loadavg } from "node:os";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { dist, startBenchRead, startSimulatorChild } from "./lib/read-setup.mjs";
import { percentile, round } from "./lib/stats.mjs";
import { allPass, atMost, finishBench } from "./lib/verdict.mjs";

// A full collection before each memory sample, so garbage of earlier calls is not counted.
setFlagsFromString("--expose-gc");
const collect = runInNewContext("gc");

const FILES = 2000;
const BYTES_PER_FILE = 2600;
const ITERATIONS = 30;
const WARMUP = 3;
const MEMORY_CALLS = 5;
const TARGET_RATIO = 1.5;
const TARGET_MEMORY_RATIO = 3;

const { T3RpcClient } = await dist("core", "t3/index.js");
const { t3DiffTool } = await dist("read-server", "tools/t3_diff.js");

const child = await startSimulatorChild({
  environments: 1,
  seed: "empty",
  diff: { files: FILES, bytesPerFile: BYTES_PER_FILE },
});
const [described] = child.environments;
const read = await startBenchRead([{ ...described, projectIds: ["p-diff"] }], [t3DiffTool]);
const raw = await T3RpcClient.connect({ baseUrl: described.url, token: described.readToken });
const args = { environment: described.alias, threadId: "t-diff", scope: "thread" };

async function sampleRaw() {
  const started = performance.now();
  const answer = await raw.getFullThreadDiff({ threadId: "t-diff", toTurnCount: 1 });
  return { ms: performance.now() - started, bytes: Buffer.byteLength(answer.diff) };
}

async function sampleSubject() {
  const started = performance.now();
  const page = await read.call("t3_diff", args);
  const ms = performance.now() - started;
  if (page.totals.files < FILES || !page.nextCursor)
    throw new Error(`unexpected page: ${JSON.stringify(page.totals)}`);
  return ms;
}

/** How much the resident set grows, at its peak, while `work` runs once after a full collection. */
async function rssGrowth(work) {
  collect();
  const before = process.memoryUsage.rss();
  let peak = before;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 1);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  return Math.max(peak, process.memoryUsage.rss()) - before;
}

const samples = { raw: [], subject: [], rawGrowth: [], subjectGrowth: [] };
let diffBytes = 0;
/** The first call's growth, before the heap was ever sized for a diff (reported, no target). */
let coldGrowth = 0;
try {
  coldGrowth = await rssGrowth(sampleSubject);
  for (let i = 0; i < WARMUP + ITERATIONS; i++) {
    const baseline = await sampleRaw();
    const subject = await sampleSubject();
    diffBytes = baseline.bytes;
    if (i >= WARMUP) {
      samples.raw.push(baseline.ms);
      samples.subject.push(subject);
    }
  }
  for (let i = 0; i < MEMORY_CALLS; i++) {
    samples.rawGrowth.push(await rssGrowth(sampleRaw));
    samples.subjectGrowth.push(await rssGrowth(sampleSubject));
  }
} catch (error) {
  process.stderr.write(`read-diff failed: ${error?.stack ?? error}\n`);
  process.exitCode = 1;
} finally {
  raw.close();
  await read.close();
  await child.stop();
}

const p50 = (list) => percentile(list, 50);
const ratio = p50(samples.subject) / p50(samples.raw);
const growth = p50(samples.subjectGrowth);
const rawGrowth = p50(samples.rawGrowth);
const memoryRatio = growth / diffBytes;
process.stderr.write(
  `read-diff: ${samples.subject.length} samples each, a ${(diffBytes / 1e6).toFixed(2)} MB diff of ${FILES} files\n` +
    `  raw getFullThreadDiff   p50 ${p50(samples.raw).toFixed(1)} ms\n` +
    `  t3_diff first page      p50 ${p50(samples.subject).toFixed(1)} ms  (${ratio.toFixed(2)}×, target ≤ ${TARGET_RATIO}×)\n` +
    `  resident memory growth  raw RPC +${(rawGrowth / 1e6).toFixed(1)} MB, t3_diff +${(growth / 1e6).toFixed(1)} MB at peak (${memoryRatio.toFixed(2)}× the diff, target < ${TARGET_MEMORY_RATIO}×); first call +${(coldGrowth / 1e6).toFixed(1)} MB\n`,
);
const checks = [
  atMost("firstPageP50 / rawRpcP50", round(ratio), TARGET_RATIO),
  atMost("rssGrowth / diffBytes", round(memoryRatio), TARGET_MEMORY_RATIO),
];
finishBench({
  bench: "read-diff",
  samples: samples.subject.length,
  files: FILES,
  diffBytes,
  rawP50Ms: round(p50(samples.raw)),
  subjectP50Ms: round(p50(samples.subject)),
  subjectP99Ms: round(percentile(samples.subject, 99)),
  ratioP50: round(ratio),
  coldRssGrowthBytes: coldGrowth,
  rawRssGrowthBytes: rawGrowth,
  rssGrowthBytes: growth,
  memoryRatio: round(memoryRatio),
  checks,
  pass: allPass(checks) && process.exitCode !== 1,
  loadavg1m: round(loadavg()[0] ?? 0),
});
