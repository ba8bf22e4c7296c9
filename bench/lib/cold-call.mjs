// One cold measurement in a fresh Node process, for bench/read-scale.mjs: a restarted client's
// first call pays for code that never ran yet (JIT, lazily loaded modules), which a later session
// in a warmed-up process would hide. argv[2] is JSON `{mode, environments, threads, limits}`:
//   - mode "sweep": the read server's modules loaded and its session set up, then the first
//     `t3_threads {}` is timed from the call to the answer in hand;
//   - mode "raw": every environment's shell fetched and `JSON.parse`d, FAN_OUT_CONCURRENCY at a
//     time, timed the same way.
// Prints one JSON line `{"ms": …}`.
import { dist, startBenchRead } from "./read-setup.mjs";

const { mode, environments, threads, limits } = JSON.parse(process.argv[2] ?? "{}");

async function fetchShell(env) {
  const response = await fetch(`${env.url}/api/orchestration/shell`, {
    headers: { authorization: `Bearer ${env.readToken}`, "x-t3-orchestration-protocol": "2" },
  });
  const shell = JSON.parse(await response.text());
  if (!Array.isArray(shell.threads) || shell.threads.length !== threads) throw new Error("unexpected shell");
}

let ms;
if (mode === "raw") {
  const { FAN_OUT_CONCURRENCY } = await dist("core", "fanout/index.js");
  const started = performance.now();
  const queue = [...environments];
  await Promise.all(
    Array.from({ length: FAN_OUT_CONCURRENCY }, async () => {
      for (let env = queue.shift(); env !== undefined; env = queue.shift()) await fetchShell(env);
    }),
  );
  ms = performance.now() - started;
} else {
  const { t3ThreadsTool } = await dist("read-server", "tools/t3_threads.js");
  const read = await startBenchRead(environments, [t3ThreadsTool], { limits });
  try {
    const started = performance.now();
    const result = await read.call("t3_threads", {});
    ms = performance.now() - started;
    if (result.complete !== true || result.threads.length === 0) throw new Error("incomplete cold sweep");
  } finally {
    await read.close();
  }
}
process.stdout.write(`${JSON.stringify({ ms })}\n`);
