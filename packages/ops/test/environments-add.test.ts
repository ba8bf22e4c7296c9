import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { EXIT_CODES } from "@t3-connector/core/cli-support";
import { OPERATE_SCOPES } from "@t3-connector/core/environments";
import { type Simulator, startSimulator } from "@t3-connector/t3-sim";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
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
  // The token file defaults as in the read and write CLIs: tokens/<alias>.ops.token beside ops.json.
  const tokenFile = path.join(dir, "tokens", `${alias}.ops.token`);
  return { tokenFile, args: ["environments", "add", alias, "--url", alpha.url, "--alias", "laptop"] };
}

function operateCode(): string {
  return sim.environment("alpha").createPairingCode({ scopes: OPERATE_SCOPES });
}

// What environments add does is the one environments command's (test/environments-command.test.ts);
// here ops' words reach it over ops.json and the environment it added then works.
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
      configPath: path.join(dir, "ops.json"),
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
});

describe("diagnose and pair", () => {
  it("reach the one environments command over ops.json, naming the environment first or by an extra name", async () => {
    const { tokenFile, args } = addArgs();
    expect((await runOps(args, { env, stdin: operateCode() })).code).toBe(0);
    const diagnosed = await runOps(["diagnose", "--projects"], { env });
    expect(diagnosed.code, diagnosed.stderr).toBe(0);
    expect(diagnosed.json()).toMatchObject({
      ok: true,
      environments: [{ alias: "mac", ok: true, scopes: [...OPERATE_SCOPES].sort() }],
    });
    const before = await readFile(tokenFile, "utf8");
    const paired = await runOps(["laptop", "pair"], { env, stdin: `${operateCode()}\n` });
    expect(paired.code, paired.stderr).toBe(0);
    expect(paired.json()).toMatchObject({ environment: "mac", savedTo: tokenFile });
    expect(await readFile(tokenFile, "utf8")).not.toBe(before);
    const unnamed = await runOps(["pair"], { env, stdin: operateCode() });
    expect(unnamed.code).toBe(EXIT_CODES.usage);
    expect(unnamed.stderr).toContain("t3-connector-ops: invalid_input: pair needs --environment X");
    const spelled = await runOps(["pair", "--environment", "mac"], { env, stdin: operateCode() });
    expect(spelled.json()).toMatchObject({ environment: "mac" });
  });
});

describe("environments add's command line (the shared parser)", () => {
  it.each([
    [["--ssh", "h:22", "--remote-port", "4000"], "give the port once: --ssh HOST:PORT"],
    [["--url", "https://a.example", "--remote-port", "4000"], "--remote-port goes with --ssh, not --url"],
    [[], "environments add needs exactly one of --url URL or --ssh HOST[:PORT]"],
    [
      ["--url", "https://a.example", "--ssh", "b"],
      "environments add needs exactly one of --url URL or --ssh",
    ],
    [["--ssh", "bad host"], "--ssh bad host must be HOST or HOST:PORT"],
    [["--url", "https://a.example", "--url", "https://b.example"], "--url given twice"],
  ])("refuses %j with a usage error and writes nothing", async (flags, problem) => {
    const run = await runOps(["environments", "add", "box", ...flags], { env, stdin: operateCode() });
    expect(run.code).toBe(EXIT_CODES.usage);
    expect(run.stderr).toContain(`invalid_input: ${problem}`);
    await expect(stat(path.join(dir, "ops.json"))).rejects.toThrow();
  });

  it("still takes --ssh HOST --remote-port P, warning with the new spelling", async () => {
    // A host the transport check refuses stops it right after the parser, before any ssh is started.
    const run = await runOps(["environments", "add", "box", "--ssh", "bad!host", "--remote-port", "4000"], {
      env,
      stdin: operateCode(),
    });
    expect(run.stderr).toContain(
      "t3-connector-ops: warning: --remote-port is deprecated: write --ssh bad!host:4000",
    );
    expect(run.stderr).toContain("invalid_input: --ssh bad!host:4000 must be HOST or HOST:PORT");
    expect(run.code).toBe(EXIT_CODES.usage);
  });
});
