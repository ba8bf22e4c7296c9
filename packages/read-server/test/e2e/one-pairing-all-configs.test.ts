import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { type Simulator, startSimulator } from "@t3-connector/t3-sim";
import { builtBin } from "@t3-connector/test-support/built-bins";
import { freePort } from "@t3-connector/test-support/free-port";
import { callTool, spawnServe } from "@t3-connector/test-support/spawned-serve";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exchangeBootstrapCode } from "../support/bootstrap-code.js";

// One `t3-connector environments add --also write,ops` fills the read config, the gate's
// write.json and ops' ops.json. Every part is the real one: the built CLIs, spawned, against the
// simulator over real sockets; the token scopes are asked of the simulator itself.
let sim: Simulator;
let root: string;

beforeAll(async () => {
  sim = await startSimulator({
    environments: [
      { alias: "alpha", seed: "demo" },
      { alias: "beta", seed: "demo" },
    ],
  });
  root = await mkdtemp(path.join(os.tmpdir(), "t3-one-pairing-"));
}, 200_000);

afterAll(async () => {
  await sim?.close();
  if (root !== undefined) await rm(root, { recursive: true, force: true });
});

interface Machine {
  dir: string;
  env: Record<string, string>;
  read: string;
  write: string;
  ops: string;
}

function machine(name: string): Machine {
  const dir = path.join(root, name, "t3-connector");
  const read = path.join(dir, "config.json");
  const write = path.join(dir, "write.json");
  const ops = path.join(dir, "ops.json");
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && key !== "T3_CONNECTOR_OPS_ENVIRONMENTS") env[key] = value;
  }
  Object.assign(env, {
    T3_CONNECTOR_CONFIG: read,
    T3_CONNECTOR_WRITE_CONFIG: write,
    T3_CONNECTOR_OPS_CONFIG: ops,
  });
  return { dir, env, read, write, ops };
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(
  bin: "t3-connector" | "t3-connector-write" | "t3-connector-ops",
  args: string[],
  env: Record<string, string>,
  stdin = "",
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [builtBin(bin), ...args], { env, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

function addWithAlso(m: Machine, alias: string, simAlias: string, codes: string[]) {
  const url = sim.environment(simAlias).url;
  return run(
    "t3-connector",
    ["environments", "add", alias, "--url", url, "--projects", "all", "--also", "write,ops"],
    m.env,
    `${codes.join("\n")}\n`,
  );
}

/** The scopes the simulator holds for a token, asked over HTTP like any client would. */
async function scopesAtSimulator(simAlias: string, tokenFile: string): Promise<string[]> {
  const token = (await readFile(tokenFile, "utf8")).trim();
  const answer = await fetch(`${sim.environment(simAlias).url}/api/auth/session`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const body = (await answer.json()) as { authenticated: boolean; scopes?: string[] };
  expect(body.authenticated).toBe(true);
  return [...(body.scopes ?? [])].sort();
}

const mode = async (file: string) => (await stat(file)).mode & 0o777;

/** Starts the gate on `write.json`, resolves once it prints its enrollment code, then stops it. */
async function gateStarts(m: Machine): Promise<string> {
  const child = spawn(process.execPath, [builtBin("t3-connector-write"), "gate"], {
    env: m.env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  const exited = once(child, "exit");
  await new Promise<void>((resolve, reject) => {
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
      if (/enrollment code: \S+/.test(stderr)) resolve();
    });
    void exited.then(() => reject(new Error(`the gate exited before it was ready:\n${stderr}`)));
  });
  child.kill("SIGTERM");
  await exited;
  return stderr;
}

describe("one pairing for the read server, the write gate and ops", () => {
  it("fills three configs from zero, each working, with the right scope at the simulator and private files", async () => {
    const m = machine("fresh");
    const alpha = sim.environment("alpha");
    const added = await addWithAlso(m, "laptop", "alpha", [
      alpha.createPairingCode(),
      alpha.createPairingCode(),
    ]);
    expect(added.stderr).toBe("");
    expect(added.code).toBe(0);
    const report = JSON.parse(added.stdout);
    const readToken = path.join(m.dir, "tokens", "laptop.read.token");
    const gateToken = path.join(m.dir, "tokens", "laptop.operate.token");
    const opsToken = path.join(m.dir, "tokens", "laptop.ops.token");
    const operate = ["orchestration:operate", "orchestration:read"];
    expect(report).toMatchObject({ alias: "laptop", configPath: m.read, tokenFile: readToken, ok: true });
    expect(report.scopes).toEqual(["orchestration:read"]);
    expect(report.alsoAdded).toEqual([
      { config: "write", path: m.write, alias: "laptop", tokenFile: gateToken, scopes: operate },
      { config: "ops", path: m.ops, alias: "laptop", tokenFile: opsToken, scopes: operate },
    ]);
    expect(report.revoke).toEqual([
      expect.objectContaining({ token: "read", tokenFiles: [readToken] }),
      expect.objectContaining({ token: "operate", tokenFiles: [gateToken, opsToken] }),
    ]);
    for (const advice of report.revoke) expect(advice.how).toContain("t3 auth session revoke");

    expect(await scopesAtSimulator("alpha", readToken)).toEqual(["orchestration:read"]);
    expect(await scopesAtSimulator("alpha", gateToken)).toEqual(operate);
    expect(await scopesAtSimulator("alpha", opsToken)).toEqual(operate);
    for (const file of [m.read, m.write, m.ops, readToken, gateToken, opsToken])
      expect(await mode(file)).toBe(0o600);
    for (const dir of [m.dir, path.join(m.dir, "tokens")]) expect(await mode(dir)).toBe(0o700);

    // The read server reads with its token.
    const serve = await spawnServe(m.read);
    try {
      const listing = await callTool(serve.client, "t3_threads", { includeNoRun: true });
      expect(JSON.stringify(listing)).toContain(alpha.environmentId);
    } finally {
      await serve.close();
    }
    // The gate's token verifies as read + operate, and the gate starts on the new write.json.
    const diagnosis = await run("t3-connector-write", ["diagnose"], m.env);
    expect(diagnosis.code).toBe(0);
    expect(JSON.parse(diagnosis.stdout).environments[0]).toMatchObject({
      alias: "laptop",
      scopes: operate,
    });
    const written = JSON.parse(await readFile(m.write, "utf8"));
    await writeFile(m.write, JSON.stringify({ ...written, port: await freePort() }), { mode: 0o600 });
    expect(await gateStarts(m)).not.toContain("WARNING");
    // ops lists the environment's threads.
    const listed = await run("t3-connector-ops", ["ls", "--json"], m.env);
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout).environments.map((env: { alias: string }) => env.alias)).toEqual([
      "laptop",
    ]);
  }, 240_000);

  it("adds to configs that already have environments, keeps theirs, and re-pairs the machine in one run", async () => {
    const m = machine("existing");
    const alpha = sim.environment("alpha");
    const beta = sim.environment("beta");
    expect(
      (await addWithAlso(m, "laptop", "alpha", [alpha.createPairingCode(), alpha.createPairingCode()])).code,
    ).toBe(0);
    const second = await addWithAlso(m, "build", "beta", [
      beta.createPairingCode(),
      beta.createPairingCode(),
    ]);
    expect(second.code).toBe(0);
    for (const file of [m.read, m.write, m.ops]) {
      const config = JSON.parse(await readFile(file, "utf8"));
      expect(Object.keys(config.environments).sort()).toEqual(["build", "laptop"]);
    }
    const listed = await run("t3-connector-ops", ["ls", "--json"], m.env);
    expect(listed.code).toBe(0);
    expect(
      JSON.parse(listed.stdout)
        .environments.map((env: { alias: string }) => env.alias)
        .sort(),
    ).toEqual(["build", "laptop"]);
    // The same machine re-paired in one run: both tokens renewed, and ops still lists with its new one.
    const before = await readFile(path.join(m.dir, "tokens", "laptop.ops.token"), "utf8");
    const renewed = await run(
      "t3-connector",
      ["pair", "--environment", "laptop", "--also", "write,ops"],
      m.env,
      `${alpha.createPairingCode()}\n${alpha.createPairingCode()}\n`,
    );
    expect(renewed.code).toBe(0);
    expect(JSON.parse(renewed.stdout).alsoPaired).toHaveLength(2);
    expect(await readFile(path.join(m.dir, "tokens", "laptop.ops.token"), "utf8")).not.toBe(before);
    expect((await run("t3-connector-ops", ["ls", "--json"], m.env)).code).toBe(0);
  }, 240_000);

  it("never clobbers an alias the write config already has: a typed error, no file changed, no code spent", async () => {
    const m = machine("clash");
    const alpha = sim.environment("alpha");
    const beta = sim.environment("beta");
    // write.json already names "laptop" (another machine); the read config and ops.json do not exist.
    const first = await run(
      "t3-connector-write",
      ["environments", "add", "laptop", "--url", beta.url],
      m.env,
      `${beta.createPairingCode()}\n`,
    );
    expect(first.code).toBe(0);
    const before = await readFile(m.write, "utf8");
    const readCode = alpha.createPairingCode();
    const operateCode = alpha.createPairingCode();
    const refused = await addWithAlso(m, "laptop", "alpha", [readCode, operateCode]);
    expect(refused.code).not.toBe(0);
    expect(refused.stdout).toBe("");
    expect(refused.stderr).toMatch(/environment_exists: .*write\.json already has an environment "laptop"/);
    expect(await readFile(m.write, "utf8")).toBe(before);
    await expect(stat(m.read)).rejects.toThrow();
    await expect(stat(m.ops)).rejects.toThrow();
    // Both codes are still unspent: each still pairs.
    for (const code of [readCode, operateCode]) {
      const answer = await exchangeBootstrapCode(alpha.url, code);
      expect(answer.status).toBe(200);
    }
  }, 240_000);
});
