import { type SimEnvironment, type Simulator, startSimulator } from "@t3-connector/t3-sim";
import { afterAll, afterEach, beforeAll } from "vitest";

/**
 * Registers the file's hooks: a demo simulator with a current T3 (`alpha`) and a transitional one
 * (`beta`), the clients' two server generations, closed after the file; `alpha`'s faults are
 * cleared after each test. `ready` hands both environments to the file's own variables.
 */
export function useAlphaAndTransitional(
  ready: (env: SimEnvironment, transitional: SimEnvironment) => void,
): void {
  let sim: Simulator | undefined;
  beforeAll(async () => {
    sim = await startSimulator({
      environments: [
        { alias: "alpha", seed: "demo" },
        { alias: "beta", seed: "demo", transitional: true },
      ],
    });
    ready(sim.environment("alpha"), sim.environment("beta"));
  });
  afterAll(async () => {
    await sim?.close();
  });
  afterEach(() => {
    sim?.environment("alpha").faults.clear();
  });
}
