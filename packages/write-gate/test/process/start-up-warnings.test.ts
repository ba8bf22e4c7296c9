/**
 * The gate says at start what is wrong with an environment it could never operate: a server
 * answering as another environmentId than the config expects, or a read-only token. Real
 * simulator environments over HTTP; the warning names the environment on the gate's terminal.
 */
import { writeTokenFile } from "@t3-connector/core/config";
import { OPERATE_SCOPES } from "@t3-connector/core/environments";
import { type SimWorld, startSimWorld } from "@t3-connector/test-support/sim-world";
import { startV1Server } from "@t3-connector/test-support/t3-v1-server";
import { afterEach, describe, expect, it } from "vitest";
import { type RunningGate, startGate } from "../../src/process/index.js";

let world: SimWorld | undefined;
let gate: RunningGate | undefined;

afterEach(async () => {
  await gate?.close();
  gate = undefined;
  await world?.close();
  world = undefined;
});

async function start(world: SimWorld, lines: string[]): Promise<RunningGate> {
  return startGate({
    config: world.config,
    log: (line) => lines.push(line),
    handleSignals: false,
    settleAtStart: false,
  });
}

describe("start-up warnings about environments", () => {
  it("names an environment whose token is read-only, and one that answers as another environmentId", async () => {
    world = await startSimWorld(["alpha", "beta", "gamma"]);
    const [alpha, beta] = world.config.environments;
    if (alpha === undefined || beta === undefined) throw new Error("no environments");
    await writeTokenFile(alpha.tokenFile, world.env("alpha").readToken);
    const config = {
      ...world.config,
      environments: world.config.environments.map((entry) =>
        entry.alias === "beta" ? { ...entry, environmentId: "env-expected-elsewhere" } : entry,
      ),
    };
    world = { ...world, config };
    const lines: string[] = [];
    gate = await start(world, lines);

    const warnings = await gate.environmentWarnings;
    expect(warnings.map((warning) => [warning.alias, warning.code]).sort()).toEqual([
      ["alpha", "scope_mismatch"],
      ["beta", "environment_mismatch"],
    ]);
    const printed = lines.filter((line) => line.includes("WARNING"));
    expect(printed).toHaveLength(2);
    expect(printed.find((line) => line.includes('"alpha"'))).toMatch(/lacks orchestration:operate/);
    expect(printed.find((line) => line.includes('"beta"'))).toContain("env-expected-elsewhere");
  });

  it("refuses to serve beside a protocol-1 T3 (real 0.0.28 answers), naming it, its version and the upgrade", async () => {
    world = await startSimWorld(["alpha"]);
    const v1 = await startV1Server({ scopes: OPERATE_SCOPES });
    try {
      const [alpha] = world.config.environments;
      if (alpha === undefined) throw new Error("no environments");
      const oldBox = {
        ...alpha,
        alias: "old-box",
        environmentId: v1.environmentId,
        transport: { kind: "url" as const, url: v1.url },
      };
      world = { ...world, config: { ...world.config, environments: [alpha, oldBox] } };
      const lines: string[] = [];
      gate = await start(world, lines);
      await gate.closed;
      expect(gate.refusal()).toMatchObject({ code: "protocol_unsupported" });
      const refused = lines.find((line) => line.includes("REFUSED"));
      expect(refused).toContain('environment "old-box" runs T3 0.0.28');
      expect(refused).toContain("upgrade T3 to 0.0.46 or later");
    } finally {
      await v1.close();
    }
  });

  it("stays quiet when every environment can be operated", async () => {
    world = await startSimWorld(["alpha"]);
    const lines: string[] = [];
    gate = await start(world, lines);
    expect(await gate.environmentWarnings).toEqual([]);
    expect(lines.some((line) => line.includes("WARNING"))).toBe(false);
  });
});
