import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { type Simulator, startSimulator } from "@t3-connector/t3-sim";
import { captureIo } from "@t3-connector/test-support/sim-config";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../src/cli.js";

let sim: Simulator;
let dir: string;
let configPath: string;

beforeAll(async () => {
  sim = await startSimulator({
    environments: [
      { alias: "alpha", seed: "demo" },
      { alias: "beta", seed: "demo" },
    ],
  });
  dir = await mkdtemp(path.join(os.tmpdir(), "t3-connector-add-"));
  configPath = path.join(dir, "fresh", "config.json");
});

afterAll(async () => {
  await sim?.close();
  await rm(dir, { recursive: true, force: true });
});

const mode = async (file: string) => (await stat(file)).mode & 0o777;

async function run(argv: string[], stdin?: string) {
  const captured = captureIo({ T3_CONNECTOR_CONFIG: configPath }, stdin);
  const code = await runCli(argv, captured.io);
  return { code, ...captured };
}

describe("t3-connector environments add and remove", () => {
  it("pairs a new environment from a pairing code on stdin into a config that did not exist, and lists it available", async () => {
    const alpha = sim.environment("alpha");
    const added = await run(
      ["environments", "add", "mine", "--url", alpha.url, "--projects", "all"],
      `${alpha.createPairingCode()}\n`,
    );
    expect(added.stderr()).toBe("");
    expect(added.code).toBe(0);
    const report = added.json();
    expect(report).toMatchObject({
      alias: "mine",
      configPath,
      ok: true,
      scopes: ["orchestration:read"],
    });
    expect(report.diagnosis).toMatchObject({
      ok: true,
      environmentId: alpha.environmentId,
      missingAllowedProjects: [],
    });

    const config = JSON.parse(await readFile(configPath, "utf8"));
    const entry = config.environments.mine;
    expect(entry).toMatchObject({ environmentId: alpha.environmentId, url: alpha.url });
    expect(entry.allowedProjects.length).toBeGreaterThan(0);
    expect(entry.tokenFile).toBe(path.join(dir, "fresh", "tokens", "mine.read.token"));
    expect(await mode(configPath)).toBe(0o600);
    expect(await mode(entry.tokenFile)).toBe(0o600);
    expect(await mode(path.dirname(entry.tokenFile))).toBe(0o700);

    const listed = await run(["environments"]);
    expect(listed.json().environments).toEqual([
      expect.objectContaining({ alias: "mine", environmentId: alpha.environmentId, available: true }),
    ]);
  });

  it("refuses an existing alias, a wrong URL and a descriptor that does not answer, spending no code", async () => {
    const beta = sim.environment("beta");
    const code = beta.createPairingCode();
    const existing = await run(["environments", "add", "mine", "--url", beta.url, "--projects", "all"], code);
    expect(existing.code).toBe(78);
    expect(existing.stderr()).toMatch(/environment_exists: .*already has an environment "mine"/);
    const wrongUrl = await run(
      ["environments", "add", "b", "--url", "http://example.com", "--projects", "all"],
      code,
    );
    expect(wrongUrl.stderr()).toMatch(/invalid_input: --url http:\/\/example.com must be https/);
    const silent = await run(
      ["environments", "add", "b", "--url", "http://127.0.0.1:9", "--projects", "all"],
      code,
    );
    expect(silent.stderr()).toMatch(
      /environment_unavailable: the T3 descriptor at http:\/\/127.0.0.1:9 \(\/.well-known\/t3\/environment\) did not answer/,
    );
    const sameMachine = await run(
      ["environments", "add", "again", "--url", sim.environment("alpha").url, "--projects", "all"],
      code,
    );
    expect(sameMachine.stderr()).toMatch(/environment_exists: .*as "mine"/);
    // The code is still good: none of the refusals spent it.
    const added = await run(["environments", "add", "b", "--url", beta.url, "--projects", "all"], code);
    expect(added.code, added.stderr()).toBe(0);
  });

  it("refuses a used pairing code and leaves the config as it was", async () => {
    const beta = sim.environment("beta");
    const removed = await run(["environments", "remove", "b"]);
    expect(removed.code).toBe(0);
    expect(removed.json()).toMatchObject({ removed: "b", environmentsLeft: 1 });
    const before = await readFile(configPath, "utf8");
    const code = beta.createPairingCode();
    expect((await run(["environments", "add", "b", "--url", beta.url, "--projects", "all"], code)).code).toBe(
      0,
    );
    expect((await run(["environments", "remove", "b"])).code).toBe(0);
    const reused = await run(["environments", "add", "b", "--url", beta.url, "--projects", "all"], code);
    expect(reused.code).toBe(67);
    expect(reused.stderr()).toMatch(
      /pairing_failed: T3 refused the pairing code: it is unknown, expired or already used/,
    );
    expect(await readFile(configPath, "utf8")).toBe(before);
    await expect(stat(path.join(dir, "fresh", "tokens", "b.read.token"))).rejects.toMatchObject({
      code: "ENOENT",
    });
  });

  it("refuses project ids the environment does not have, keeping no token behind", async () => {
    const beta = sim.environment("beta");
    const result = await run(
      ["environments", "add", "b", "--url", beta.url, "--projects", "no-such-project"],
      beta.createPairingCode(),
    );
    expect(result.code).toBe(64);
    expect(result.stderr()).toMatch(
      /invalid_input: --projects names no-such-project, which the environment does not have/,
    );
    await expect(stat(path.join(dir, "fresh", "tokens", "b.read.token"))).rejects.toMatchObject({
      code: "ENOENT",
    });
  });
});
