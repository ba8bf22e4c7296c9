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
  // The token file defaults as in the read and write CLIs: tokens/<alias>.ops.token beside ops.json.
  const tokenFile = path.join(dir, "tokens", `${alias}.ops.token`);
  return { tokenFile, args: ["environments", "add", alias, "--url", alpha.url, "--alias", "laptop"] };
}

function operateCode(): string {
  return sim.environment("alpha").createPairingCode({ scopes: OPERATE_SCOPES });
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

  it("saves nothing when T3 grants only read, and refuses an alias that is already configured", async () => {
    const { tokenFile, args } = addArgs();
    const readOnly = sim.environment("alpha").createPairingCode({ scopes: READ_SCOPES });
    const refused = await runOps(args, { env, stdin: readOnly });
    expect(refused.code).toBe(EXIT_CODES.refused);
    expect(refused.stderr).toMatch(/^t3-connector-ops: scope_not_granted: /);
    await expect(stat(path.join(dir, "ops.json"))).rejects.toThrow();
    await expect(stat(tokenFile)).rejects.toThrow();
    const good = sim.environment("alpha").createPairingCode({ scopes: OPERATE_SCOPES });
    expect((await runOps(args, { env, stdin: good })).code).toBe(0);
    const again = await runOps(args, {
      env,
      stdin: sim.environment("alpha").createPairingCode({ scopes: OPERATE_SCOPES }),
    });
    expect(again.code).toBe(EXIT_CODES.config);
    expect(again.stderr).toMatch(/^t3-connector-ops: environment_exists: .*already has an environment "mac"/);
  });

  it("saves the token where --token-file says, and refuses the same machine under a second alias", async () => {
    const tokenFile = path.join(dir, "elsewhere", "mac.token");
    const alpha = sim.environment("alpha");
    const run = await runOps(["environments", "add", "mac", "--url", alpha.url, "--token-file", tokenFile], {
      env,
      stdin: operateCode(),
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.json()).toMatchObject({ alias: "mac", tokenFile });
    expect((await stat(tokenFile)).mode & 0o777).toBe(0o600);
    const code = operateCode();
    const twice = await runOps(["environments", "add", "other", "--url", alpha.url], { env, stdin: code });
    expect(twice.code).toBe(EXIT_CODES.config);
    expect(twice.stderr).toMatch(
      /^t3-connector-ops: environment_exists: .*as "mac"; the pairing code was not used/,
    );
    // The code refused above is still good: nothing spent it.
    const third = await runOps(["environments", "add", "third", "--url", sim.environment("alpha").url], {
      env: { T3_CONNECTOR_OPS_CONFIG: path.join(dir, "another.json") },
      stdin: code,
    });
    expect(third.code, third.stderr).toBe(0);
  });

  it("refuses an expected --environment-id the server does not announce, before the code is spent", async () => {
    const code = operateCode();
    const { args } = addArgs();
    const refused = await runOps([...args, "--environment-id", "someone-else"], { env, stdin: code });
    expect(refused.code).toBe(EXIT_CODES.config);
    expect(refused.stderr).toMatch(
      /^t3-connector-ops: environment_mismatch: the server answers as .* not someone-else/,
    );
    await expect(stat(path.join(dir, "ops.json"))).rejects.toThrow();
    expect((await runOps(args, { env, stdin: code })).code).toBe(0);
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
