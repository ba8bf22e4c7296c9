import { stat } from "node:fs/promises";
import path from "node:path";
import { type Simulator, startSimulator } from "@t3-connector/t3-sim";
import {
  captureIo,
  liveProjectIds,
  type SimConfig,
  writeSimConfig,
} from "@t3-connector/test-support/sim-config";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../src/cli.js";

let sim: Simulator;
let config: SimConfig;
const env = () => ({ T3_CONNECTOR_CONFIG: config.configPath });

beforeAll(async () => {
  sim = await startSimulator({
    environments: [
      { alias: "alpha", seed: "demo" },
      { alias: "beta", seed: "demo" },
    ],
  });
  config = await writeSimConfig(sim, {
    allowedProjects: { beta: [...liveProjectIds(sim.environment("beta")), "project-that-is-gone"] },
  });
});

afterAll(async () => {
  await sim.close();
  await config.remove();
});

function visibleThreads(alias: string): number {
  const simEnv = sim.environment(alias);
  const outcome = simEnv.model.httpShell();
  const shell =
    outcome.kind === "ok" ? (outcome.body as { threads: Array<Record<string, unknown>> }) : { threads: [] };
  const allowed = new Set(liveProjectIds(simEnv));
  return shell.threads.filter((t) => allowed.has(t.projectId as string) && !t.archivedAt && !t.deletedAt)
    .length;
}

describe("t3-connector environments", () => {
  it("prints every configured environment with its transport and availability as JSON", async () => {
    const run = captureIo(env());
    expect(await runCli(["environments"], run.io)).toBe(0);
    const listing = run.json() as { default?: string; environments: Array<Record<string, unknown>> };
    // Printed as the file has it (and left out when it has none: see the empty config below).
    expect(listing.default).toBe("alpha");
    expect(listing.environments).toEqual([
      expect.objectContaining({
        alias: "alpha",
        environmentId: sim.environment("alpha").environmentId,
        transport: "url",
        available: true,
        name: sim.environment("alpha").label,
      }),
      expect.objectContaining({ alias: "beta", available: true }),
    ]);
  });

  it("marks an environment whose token is refused as unavailable, with the code", async () => {
    sim.environment("beta").faults.set({ expireTokens: true });
    try {
      const run = captureIo(env());
      expect(await runCli(["ambientes"], run.io)).toBe(0);
      const beta = (run.json() as { environments: Array<Record<string, unknown>> }).environments[1];
      expect(beta).toMatchObject({ alias: "beta", available: false, error: { code: "unauthorized" } });
    } finally {
      sim.environment("beta").faults.clear();
    }
  });
});

describe("t3-connector with no environment configured", () => {
  it("environments lists none and says how to add one; diagnose says the same as its error", async () => {
    const { writeFile } = await import("node:fs/promises");
    const emptyPath = path.join(config.dir, "empty.json");
    await writeFile(emptyPath, JSON.stringify({ environments: {} }), { mode: 0o600 });
    const listing = captureIo({ T3_CONNECTOR_CONFIG: emptyPath });
    expect(await runCli(["environments"], listing.io)).toBe(0);
    expect(listing.json()).toEqual({ configPath: emptyPath, environments: [] });
    expect(listing.stderr()).toContain(`no environment is configured in ${emptyPath}`);
    expect(listing.stderr()).toContain("t3-connector environments add <alias> --url URL");
    const diagnose = captureIo({ T3_CONNECTOR_CONFIG: emptyPath });
    expect(await runCli(["diagnose"], diagnose.io)).not.toBe(0);
    expect(diagnose.stderr()).toContain("no_environments: ");
  });
});

describe("t3-connector diagnose and pair reach the one environments command", () => {
  // What they do: test/environments-command.test.ts. Here: the read CLI's words, over the read config.
  it("diagnose --environment X reports the read config's projects and threads", async () => {
    const run = captureIo(env());
    expect(await runCli(["diagnose", "--environment", "alpha"], run.io)).toBe(0);
    const report = run.json() as { ok: boolean; environments: Array<Record<string, unknown>> };
    expect(report.environments).toEqual([
      expect.objectContaining({
        alias: "alpha",
        ok: true,
        scopes: ["orchestration:read"],
        missingAllowedProjects: [],
        visibleThreadCount: visibleThreads("alpha"),
      }),
    ]);
  });

  it("exits 1 naming a configured project the environment no longer has; 66 for an unknown one; 78 for no file", async () => {
    const run = captureIo(env());
    expect(await runCli(["diagnose"], run.io)).toBe(1);
    expect((run.json() as { environments: unknown[] }).environments[1]).toMatchObject({
      alias: "beta",
      missingAllowedProjects: ["project-that-is-gone"],
    });
    const unknown = captureIo(env());
    expect(await runCli(["diagnose", "--environment", "gamma"], unknown.io)).toBe(66);
    expect(unknown.stderr()).toContain("t3-connector: environment_unknown");
    const none = captureIo({ T3_CONNECTOR_CONFIG: path.join(config.dir, "nope.json") });
    expect(await runCli(["diagnose"], none.io)).toBe(78);
    expect(none.stderr()).toContain("config_not_found");
  });

  it("pair --environment X saves a read token from a pairing URL on stdin (600), never echoing the code", async () => {
    const alpha = sim.environment("alpha");
    const code = alpha.createPairingCode();
    const run = captureIo(env(), `http://127.0.0.1/pair#token=${code}`);
    expect(await runCli(["pair", "--environment", "alpha"], run.io), run.stderr()).toBe(0);
    expect(run.json()).toMatchObject({
      savedTo: config.tokenFile("alpha"),
      environment: "alpha",
      scopes: ["orchestration:read"],
    });
    expect(run.stdout() + run.stderr()).not.toContain(code);
    expect((await stat(config.tokenFile("alpha"))).mode & 0o777).toBe(0o600);
    const refused = captureIo(env(), "ABCDEFGH2345");
    expect(await runCli(["pair", "--environment", "beta"], refused.io)).toBe(67);
    expect(refused.stderr()).toContain("pairing_failed");
  });

  it("needs --environment", async () => {
    const run = captureIo(env(), "X");
    expect(await runCli(["pair"], run.io)).toBe(64);
    expect(run.stderr()).toContain("--environment");
  });
});
