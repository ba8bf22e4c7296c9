import { type Simulator, startSimulator } from "@t3-connector/t3-sim";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SimConfig, writeSimConfig } from "../support/sim-config.js";
import { buildForSpawn, serveUntilExit } from "./support/spawned-serve.js";

// A read server must never hold a token that can do more than read. These spawn the real bin
// and expect it to stop before it answers anything.
let sim: Simulator;
const configs: SimConfig[] = [];

beforeAll(async () => {
  await buildForSpawn();
  sim = await startSimulator({
    environments: [
      { alias: "healthy", seed: "demo" },
      { alias: "scoped", seed: "demo" },
    ],
  });
}, 200_000);

afterAll(async () => {
  await sim?.close();
  await Promise.all(configs.map((config) => config.remove()));
});

async function configWith(options: Parameters<typeof writeSimConfig>[1]) {
  const config = await writeSimConfig(sim, options);
  configs.push(config);
  return config.configPath;
}

describe("t3-connector serve start-up", () => {
  it("refuses to start with a token that was issued with an extra scope", async () => {
    const scoped = sim.environment("scoped");
    const token = scoped.issueToken({ scopes: ["orchestration:read", "orchestration:operate"] });
    const { code, stdout, stderr } = await serveUntilExit(await configWith({ token: { scoped: token } }));
    expect(code).not.toBe(0);
    expect(stdout).toBe("");
    expect(stderr).toContain('refusing to start: scope_mismatch: the token of environment "scoped"');
    expect(stderr).not.toContain(token);
  });

  it("refuses to start when the server reports an extra scope for the token", async () => {
    const scoped = sim.environment("scoped");
    scoped.faults.set({ extraScopes: ["orchestration:operate"] });
    try {
      const { code, stderr } = await serveUntilExit(await configWith({}));
      expect(code).not.toBe(0);
      expect(stderr).toContain("scope_mismatch");
      expect(stderr).toContain("orchestration:operate");
    } finally {
      scoped.faults.clear();
    }
  });

  it("refuses to start when an environment answers as another environment", async () => {
    const { code, stderr } = await serveUntilExit(
      await configWith({ environmentId: { scoped: "expected-elsewhere" } }),
    );
    expect(code).not.toBe(0);
    expect(stderr).toContain("refusing to start: environment_mismatch");
  });
});
