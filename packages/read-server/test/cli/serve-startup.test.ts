import path from "node:path";
import { type Simulator, startSimulator } from "@t3-connector/t3-sim";
import { captureIo, type SimConfig, writeSimConfig } from "@t3-connector/test-support/sim-config";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../src/cli.js";
import { READ_TOOL_NAMES } from "../../src/read-tool-list.js";
import { fakeTool } from "../support/fake-tools.js";

// These refusals happen before `serve` touches stdio, so they run in this process. The refusals
// that come from verifying an environment (scopes, identity) are tested by spawning the bin
// (test/e2e/bin-commands.test.ts), since by then the stdio session has started.
const fifteen = READ_TOOL_NAMES.map((name) => fakeTool(name));

let sim: Simulator;
let config: SimConfig;

beforeAll(async () => {
  sim = await startSimulator({ environments: [{ alias: "alpha", seed: "empty" }] });
  config = await writeSimConfig(sim);
});

afterAll(async () => {
  await sim.close();
  await config.remove();
});

describe("t3-connector serve start-up", () => {
  it("refuses to start when the tool list is not the fifteen read tools", async () => {
    const run = captureIo({ T3_CONNECTOR_CONFIG: config.configPath });
    expect(await runCli(["serve"], run.io, fifteen.slice(1))).toBe(1);
    expect(run.stderr()).toContain("missing: t3_ambientes");
    expect(run.stdout()).toBe("");
  });

  it("refuses to start when a tool is not declared read-only", async () => {
    const list = READ_TOOL_NAMES.map((name) =>
      fakeTool(name, name === "t3_threads" ? { readOnlyHint: false } : undefined),
    );
    const run = captureIo({ T3_CONNECTOR_CONFIG: config.configPath });
    expect(await runCli(["serve"], run.io, list)).toBe(1);
    expect(run.stderr()).toContain("t3_threads is not declared read-only");
  });

  it("refuses to start without a read config, naming the path", async () => {
    const missing = path.join(config.dir, "missing.json");
    const run = captureIo({ T3_CONNECTOR_CONFIG: missing });
    expect(await runCli(["serve"], run.io, fifteen)).toBe(1);
    expect(run.stderr()).toContain("config_not_found");
    expect(run.stderr()).toContain(missing);
  });
});
