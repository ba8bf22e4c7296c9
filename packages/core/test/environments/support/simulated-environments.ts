/**
 * The registry tests' world: a simulator, private token files and a stand-in ssh for all of a
 * file's tests, with every registry a test builds closed, and every fault cleared, after it.
 */
import { startSimulator } from "@t3-connector/t3-sim";
import { createFakeSsh, type FakeSsh } from "@t3-connector/test-support/fake-ssh";
import { createTokenFiles, type TokenFiles } from "@t3-connector/test-support/token-files";
import { afterAll, afterEach, beforeAll } from "vitest";
import type { EnvironmentRegistry } from "../../../src/environments/index.js";

export type Simulator = Awaited<ReturnType<typeof startSimulator>>;

export interface SimulatedEnvironments {
  sim: Simulator;
  tokens: TokenFiles;
  fakeSsh: FakeSsh;
}

/** Registers the file's hooks; `ready` hands what they started to the file's own variables. */
export function useSimulatedEnvironments(
  simulator: Parameters<typeof startSimulator>[0],
  ready: (started: SimulatedEnvironments) => void,
): { keep(registry: EnvironmentRegistry): EnvironmentRegistry } {
  let started: SimulatedEnvironments | undefined;
  const registries: EnvironmentRegistry[] = [];

  beforeAll(async () => {
    started = {
      sim: await startSimulator(simulator),
      tokens: await createTokenFiles(),
      fakeSsh: await createFakeSsh(),
    };
    ready(started);
  });

  afterEach(async () => {
    await Promise.all(registries.splice(0).map((registry) => registry.close()));
    for (const environment of started?.sim.environments ?? []) environment.faults.clear();
  });

  afterAll(async () => {
    await started?.sim.close();
    await started?.tokens.remove();
    await started?.fakeSsh.remove();
  });

  return {
    /** A registry the test built, closed after it. */
    keep(registry) {
      registries.push(registry);
      return registry;
    },
  };
}
