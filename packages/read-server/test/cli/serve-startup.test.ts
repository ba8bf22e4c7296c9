import { type Simulator, startSimulator } from "@t3-connector/t3-sim";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../src/cli.js";
import { READ_TOOL_NAMES } from "../../src/read-tool-list.js";
import { fakeTool } from "../support/fake-tools.js";
import { captureIo, type SimConfig, writeSimConfig } from "../support/sim-config.js";

// The refusals happen before stdio is touched, so `serve` can run in this process. The tools are
// stand-ins: what is under test is the start-up check, not the tools.
const eleven = READ_TOOL_NAMES.map((name) => fakeTool(name));

let sim: Simulator;
const configs: SimConfig[] = [];

beforeAll(async () => {
  sim = await startSimulator({
    environments: [
      { alias: "alpha", seed: "empty" },
      { alias: "beta", seed: "empty" },
    ],
  });
});

afterAll(async () => {
  await sim.close();
  await Promise.all(configs.map((config) => config.remove()));
});

async function serveWith(options: Parameters<typeof writeSimConfig>[1]) {
  const config = await writeSimConfig(sim, options);
  configs.push(config);
  const run = captureIo({ T3_CONNECTOR_CONFIG: config.configPath });
  const code = await runCli(["serve"], run.io, eleven);
  return { code, stderr: run.stderr(), stdout: run.stdout() };
}

describe("t3-connector serve start-up", () => {
  it("refuses to start when a token also grants orchestration:operate", async () => {
    const beta = sim.environment("beta");
    const { code, stderr, stdout } = await serveWith({ token: { beta: beta.operateToken } });
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(stderr).toContain("refusing to start: scope_mismatch");
    expect(stderr).toContain('environment "beta"');
    expect(stderr).toContain("orchestration:operate");
  });

  it("refuses to start when the server reports extra scopes for the token", async () => {
    const alpha = sim.environment("alpha");
    alpha.faults.set({ extraScopes: ["orchestration:admin"] });
    try {
      const { code, stderr } = await serveWith({});
      expect(code).toBe(1);
      expect(stderr).toContain("scope_mismatch");
      expect(stderr).toContain("orchestration:admin");
    } finally {
      alpha.faults.clear();
    }
  });

  it("refuses to start when an environment answers as another environmentId", async () => {
    const { code, stderr } = await serveWith({ environmentId: { alpha: "not-the-real-alpha" } });
    expect(code).toBe(1);
    expect(stderr).toContain("refusing to start: environment_mismatch");
  });

  it("refuses to start when the tool list is not the eleven read tools", async () => {
    const config = await writeSimConfig(sim);
    configs.push(config);
    const run = captureIo({ T3_CONNECTOR_CONFIG: config.configPath });
    expect(await runCli(["serve"], run.io, eleven.slice(1))).toBe(1);
    expect(run.stderr()).toContain("missing: t3_ambientes");
  });
});
