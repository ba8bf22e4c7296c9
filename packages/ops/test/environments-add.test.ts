import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { OPERATE_SCOPES, READ_SCOPES } from "@t3-connector/core/environments";
import { type Simulator, startSimulator } from "@t3-connector/t3-sim";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { EXIT_CODES } from "../src/exit-codes.js";
import { runOps } from "./support/cli-run.js";

let sim: Simulator;
let dir: string;
let env: Record<string, string>;

beforeEach(async () => {
  sim = await startSimulator({ environments: [{ alias: "alpha" }] });
  dir = await mkdtemp(path.join(os.tmpdir(), "t3-ops-add-"));
  env = { T3_CONNECTOR_OPS_CONFIG: path.join(dir, "ops.json") };
});
afterEach(async () => {
  await sim.close();
  await rm(dir, { recursive: true, force: true });
});

function addArgs(alias = "mac") {
  const alpha = sim.environment("alpha");
  const tokenFile = path.join(dir, "tokens", `${alias}.operate.token`);
  return {
    tokenFile,
    args: ["environments", "add", alias, "--url", alpha.url, "--token-file", tokenFile, "--alias", "laptop"],
  };
}

describe("environments add", () => {
  it("probes, pairs for read + operate, saves a private token file and the config, then the environment works", async () => {
    const { tokenFile, args } = addArgs();
    const code = sim.environment("alpha").createPairingCode({ scopes: OPERATE_SCOPES });
    const run = await runOps(args, { env, stdin: `${code}\n` });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.json()).toMatchObject({
      alias: "mac",
      environmentId: sim.environment("alpha").environmentId,
      tokenFile,
      scopes: [...OPERATE_SCOPES].sort(),
    });
    expect(run.stdout).not.toContain(code);
    expect((await stat(tokenFile)).mode & 0o777).toBe(0o600);
    expect((await stat(path.join(dir, "ops.json"))).mode & 0o777).toBe(0o600);
    const saved = JSON.parse(await readFile(path.join(dir, "ops.json"), "utf8"));
    expect(saved.environments.mac).toMatchObject({ aliases: ["laptop"], tokenFile });
    const listed = await runOps(["environments"], { env });
    expect(listed.json()).toMatchObject([{ alias: "mac", aliases: ["laptop"], reachable: true }]);
    const read = await runOps(["laptop", "query", "projects"], { env });
    expect(read.code).toBe(0);
  });

  it("saves nothing when T3 grants only read, and refuses an alias that is already configured", async () => {
    const { tokenFile, args } = addArgs();
    const readOnly = sim.environment("alpha").createPairingCode({ scopes: READ_SCOPES });
    const refused = await runOps(args, { env, stdin: readOnly });
    expect(refused.code).toBe(EXIT_CODES.refused);
    expect(refused.stderr).toMatch(/^scope_not_granted: /);
    await expect(stat(path.join(dir, "ops.json"))).rejects.toThrow();
    await expect(stat(tokenFile)).rejects.toThrow();
    const good = sim.environment("alpha").createPairingCode({ scopes: OPERATE_SCOPES });
    expect((await runOps(args, { env, stdin: good })).code).toBe(0);
    const again = await runOps(args, {
      env,
      stdin: sim.environment("alpha").createPairingCode({ scopes: OPERATE_SCOPES }),
    });
    expect(again.code).toBe(EXIT_CODES.usage);
    expect(again.stderr).toMatch(/^invalid_input: environment "mac" is already/);
  });
});
