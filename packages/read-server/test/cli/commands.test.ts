import { stat } from "node:fs/promises";
import path from "node:path";
import { readTokenFile } from "@t3-connector/core/config";
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

describe("t3-connector diagnose", () => {
  it("reports identity, exact scopes, expiry, projects and the visible thread count", async () => {
    const run = captureIo(env());
    expect(await runCli(["diagnose", "--environment", "alpha"], run.io)).toBe(0);
    const report = run.json() as { ok: boolean; environments: Array<Record<string, unknown>> };
    expect(report.ok).toBe(true);
    expect(report.environments).toHaveLength(1);
    const alpha = report.environments[0] as Record<string, unknown>;
    expect(alpha).toMatchObject({
      alias: "alpha",
      ok: true,
      scopes: ["orchestration:read"],
      missingAllowedProjects: [],
      visibleThreadCount: visibleThreads("alpha"),
    });
    expect((alpha.authorizedProjects as unknown[]).length).toBe(
      liveProjectIds(sim.environment("alpha")).length,
    );
    expect(alpha.visibleThreadCount).toBeGreaterThan(0);
  });

  it("exits 1 and names a configured project the environment no longer has", async () => {
    const run = captureIo(env());
    expect(await runCli(["diagnose"], run.io)).toBe(1);
    const report = run.json() as { ok: boolean; environments: Array<Record<string, unknown>> };
    expect(report.ok).toBe(false);
    expect(report.environments[1]).toMatchObject({
      alias: "beta",
      ok: false,
      missingAllowedProjects: ["project-that-is-gone"],
    });
  });

  it("exits 66 (not found) with environment_unknown for an environment that is not configured", async () => {
    const run = captureIo(env());
    expect(await runCli(["diagnose", "--environment", "gamma"], run.io)).toBe(66);
    expect(run.stdout()).toBe("");
    expect(run.stderr()).toContain("environment_unknown");
  });

  it("exits 78 (config) with config_not_found when the config file does not exist", async () => {
    const run = captureIo({ T3_CONNECTOR_CONFIG: path.join(config.dir, "nope.json") });
    expect(await runCli(["diagnose"], run.io)).toBe(78);
    expect(run.stderr()).toContain("config_not_found");
  });
});

describe("t3-connector pair", () => {
  it.each([
    ["a raw code", (code: string) => `${code}\n`],
    ["the JSON of t3 auth pairing create", (code: string) => JSON.stringify({ credential: code })],
    ["a pairing URL", (code: string) => `http://127.0.0.1/pair#token=${code}`],
  ])(
    "saves a token scoped to exactly orchestration:read from %s, never echoing the code",
    async (_, wrap) => {
      const alpha = sim.environment("alpha");
      const code = alpha.createPairingCode();
      const run = captureIo(env(), wrap(code));
      expect(await runCli(["pair", "--environment", "alpha"], run.io), run.stderr()).toBe(0);
      const saved = run.json();
      expect(saved).toMatchObject({
        savedTo: config.tokenFile("alpha"),
        environment: "alpha",
        environmentId: alpha.environmentId,
        scopes: ["orchestration:read"],
      });
      expect(typeof saved.expiresAt).toBe("string");
      expect(run.stdout() + run.stderr()).not.toContain(code);
      expect((await stat(config.tokenFile("alpha"))).mode & 0o777).toBe(0o600);
      expect((await stat(path.dirname(config.tokenFile("alpha")))).mode & 0o777).toBe(0o700);
      const token = await readTokenFile(config.tokenFile("alpha"));
      expect(run.stdout()).not.toContain(token);

      // The saved token is the one the read server now uses.
      const check = captureIo(env());
      expect(await runCli(["diagnose", "--environment", "alpha"], check.io)).toBe(0);
    },
  );

  it("does not spend the code on a server answering as another environment", async () => {
    const alpha = sim.environment("alpha");
    const code = alpha.createPairingCode();
    alpha.faults.set({ wrongEnvironmentId: "someone-else" });
    try {
      const run = captureIo(env(), code);
      expect(await runCli(["pair", "--environment", "alpha"], run.io)).toBe(78);
      expect(run.stderr()).toContain("environment_mismatch");
      expect(run.stdout()).toBe("");
    } finally {
      alpha.faults.clear();
    }
    // The code was never sent, so it still works on the right server.
    const retry = captureIo(env(), code);
    expect(await runCli(["pair", "--environment", alpha.environmentId], retry.io), retry.stderr()).toBe(0);
  });

  it("refuses a code that is unknown or already used, saving nothing new", async () => {
    const before = await readTokenFile(config.tokenFile("beta"));
    const run = captureIo(env(), "ABCDEFGH2345");
    expect(await runCli(["pair", "--environment", "beta"], run.io)).toBe(67);
    expect(run.stderr()).toContain("pairing_failed");
    expect(run.stderr()).not.toContain("ABCDEFGH2345");
    expect(await readTokenFile(config.tokenFile("beta"))).toBe(before);
  });

  it("refuses empty input as invalid_input", async () => {
    const run = captureIo(env(), "   \n");
    expect(await runCli(["pair", "--environment", "beta"], run.io)).toBe(64);
    expect(run.stderr()).toContain("invalid_input");
  });

  it("needs --environment", async () => {
    const run = captureIo(env(), "X");
    expect(await runCli(["pair"], run.io)).toBe(64);
    expect(run.stderr()).toContain("--environment");
  });
});
