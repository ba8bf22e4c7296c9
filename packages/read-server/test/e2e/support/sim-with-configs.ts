/**
 * A simulator started once for a file, and read configs written against it on demand, all removed
 * after the file: the set-up of the spawned-bin start-up tests.
 */
import { type Simulator, startSimulator } from "@t3-connector/t3-sim";
import { type SimConfig, writeSimConfig } from "@t3-connector/test-support/sim-config";
import { afterAll, beforeAll } from "vitest";

export interface SimWithConfigs {
  readonly sim: Simulator;
  /** Writes a config with these options and gives its path; it is removed after the file. */
  configWith(options: Parameters<typeof writeSimConfig>[1]): Promise<string>;
  /** A config the test wrote itself, removed after the file like the others. */
  keep(config: SimConfig): void;
}

/** Registers the simulator's start (demo seed, one environment per alias) and the clean-up. */
export function useSimWithConfigs(aliases: string[]): SimWithConfigs {
  let sim: Simulator | undefined;
  const configs: SimConfig[] = [];

  beforeAll(async () => {
    sim = await startSimulator({ environments: aliases.map((alias) => ({ alias, seed: "demo" })) });
  }, 200_000);

  afterAll(async () => {
    await sim?.close();
    await Promise.all(configs.map((config) => config.remove()));
  });

  const world: SimWithConfigs = {
    get sim() {
      if (sim === undefined) throw new Error("the simulator starts in beforeAll");
      return sim;
    },
    async configWith(options) {
      const config = await writeSimConfig(world.sim, options);
      configs.push(config);
      return config.configPath;
    },
    keep(config) {
      configs.push(config);
    },
  };
  return world;
}
