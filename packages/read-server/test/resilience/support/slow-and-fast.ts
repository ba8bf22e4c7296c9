/**
 * The issue-20 world for both transports: a simulator with `slow` and `fast`, `slow` behind a proxy
 * that holds every thread read 700 ms, and a config that points at it.
 */
import { type Simulator, startSimulator } from "@t3-connector/t3-sim";
import { type SimConfig, writeSimConfig } from "@t3-connector/test-support/sim-config";
import { type DelayingProxy, startDelayingProxy } from "../../support/delaying-proxy.js";

export interface SlowAndFast {
  sim: Simulator;
  proxy: DelayingProxy;
  config: SimConfig;
  /** The seeded threads of one environment, in the simulator's order. */
  threadIds(alias: string): string[];
  close(): Promise<void>;
}

/** Twelve reads of `slow`, four at a time, cannot finish inside a 1 s deadline. */
export async function startSlowAndFast(): Promise<SlowAndFast> {
  const sim = await startSimulator({
    environments: [
      { alias: "slow", seed: "demo" },
      { alias: "fast", seed: "demo" },
    ],
  });
  const proxy = await startDelayingProxy({
    target: sim.environment("slow").url,
    delayed: (path) => path.startsWith("/api/orchestration/threads/"),
    delayMs: 700,
  });
  const config = await writeSimConfig(sim, { url: { slow: proxy.url } });
  return {
    sim,
    proxy,
    config,
    threadIds(alias) {
      const outcome = sim.environment(alias).model.httpShell();
      if (outcome.kind !== "ok") throw new Error("no shell");
      return (outcome.body as { threads: Array<{ id: string }> }).threads.map((thread) => thread.id);
    },
    async close() {
      await proxy.close();
      await sim.close();
      await config.remove();
    },
  };
}
