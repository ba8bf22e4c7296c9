import { dist, startBenchRead, startSimulatorChild } from "./lib/read-setup-tmp.mjs";
const { t3ThreadsTool } = await dist("read-server", "tools/t3_threads.js");
const simulator = await startSimulatorChild({ environments: 8, seed: "empty", bulk: { projects: 5, threads: 2500 } });
const read = await startBenchRead(simulator.environments, [t3ThreadsTool]);
for (let i = 0; i < 3; i++) {
  const t = performance.now();
  await read.call("t3_threads", {});
  console.log(i, (performance.now() - t).toFixed(0));
}
await read.close(); await simulator.stop();
