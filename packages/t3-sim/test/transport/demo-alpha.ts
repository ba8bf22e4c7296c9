import { afterAll, afterEach, beforeAll } from "vitest";
import { RawRpcClient, startSim, type TestEnv, type TestSim } from "./helpers.js";

/**
 * Registers the file's hooks: one demo-seeded environment `alpha` for all its tests; after each
 * test its faults are cleared and the raw RPC clients it opened are closed, so none outlives it.
 * `ready` hands the environment to the file's own variable.
 */
export function useDemoAlpha(ready: (env: TestEnv) => void): {
  connect(token: string): Promise<RawRpcClient>;
} {
  let sim: TestSim | undefined;
  const clients: RawRpcClient[] = [];
  beforeAll(async () => {
    sim = await startSim({ environments: [{ alias: "alpha", seed: "demo" }] });
    ready(sim.environment("alpha"));
  });
  afterEach(async () => {
    sim?.environment("alpha").faults.clear();
    await Promise.all(clients.splice(0).map((c) => c.close()));
  });
  afterAll(async () => {
    await sim?.close();
  });
  return {
    /** A raw RPC client of `alpha` with this token, closed after the test. */
    async connect(token) {
      if (sim === undefined) throw new Error("alpha starts in beforeAll");
      const client = await RawRpcClient.connect(sim.environment("alpha").url, token);
      clients.push(client);
      return client;
    },
  };
}
