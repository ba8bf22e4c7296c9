import { readFile } from "node:fs/promises";
import { type Simulator, startSimulator } from "@t3-connector/t3-sim";
import { captureIo, type SimConfig, writeSimConfig } from "@t3-connector/test-support/sim-config";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../src/cli.js";

let sim: Simulator;
let config: SimConfig;

// A port nothing listens on: where the machine used to be.
const OLD_URL = "http://127.0.0.1:9";

beforeAll(async () => {
  sim = await startSimulator({
    environments: [
      { alias: "alpha", seed: "demo" },
      { alias: "beta", seed: "demo" },
    ],
  });
});

afterAll(async () => {
  await sim?.close();
});

afterEach(async () => {
  await config?.remove();
});

async function run(argv: string[]) {
  const captured = captureIo({ T3_CONNECTOR_CONFIG: config.configPath });
  const code = await runCli(argv, captured.io);
  return { code, ...captured };
}

describe("t3-connector environments move", () => {
  it("moves an environment to its new URL, keeps its token and projects, and reads through the new address", async () => {
    config = await writeSimConfig(sim, { url: { alpha: OLD_URL }, omit: ["beta"] });
    const alpha = sim.environment("alpha");
    const token = await readFile(config.tokenFile("alpha"), "utf8");
    const before = JSON.parse(await readFile(config.configPath, "utf8")).environments.alpha;

    const moved = await run(["environments", "move", "alpha", "--url", alpha.url]);
    expect(moved.stderr()).toBe("");
    expect(moved.code).toBe(0);
    expect(moved.json()).toMatchObject({
      alias: "alpha",
      configPath: config.configPath,
      from: OLD_URL,
      to: alpha.url,
      environmentId: alpha.environmentId,
      unchanged: false,
      tokenWorks: true,
      diagnosis: { ok: true, environmentId: alpha.environmentId },
    });
    const after = JSON.parse(await readFile(config.configPath, "utf8")).environments.alpha;
    expect(after).toEqual({ ...before, url: alpha.url });
    expect(await readFile(config.tokenFile("alpha"), "utf8")).toBe(token);

    const listed = await run(["environments"]);
    expect(listed.json().environments).toEqual([
      expect.objectContaining({ alias: "alpha", available: true }),
    ]);
  });

  it("refuses an unknown alias (66) and an invalid --url (usage problem of add's rules) without writing", async () => {
    config = await writeSimConfig(sim, { omit: ["beta"] });
    const before = await readFile(config.configPath, "utf8");
    const unknown = await run(["environments", "move", "gamma", "--url", sim.environment("alpha").url]);
    expect(unknown.code).toBe(66);
    expect(unknown.stderr()).toMatch(/environment_unknown: .*no environment "gamma"; configured: alpha/);
    const invalid = await run(["environments", "move", "alpha", "--url", "not a url"]);
    expect(invalid.code).toBe(64);
    expect(invalid.stderr()).toMatch(/--url not a url /);
    const neither = await run(["environments", "move", "alpha"]);
    expect(neither.code).toBe(64);
    expect(neither.stderr()).toMatch(
      /environments move needs exactly one of --url URL or --ssh HOST\[:PORT\]/,
    );
    expect(await readFile(config.configPath, "utf8")).toBe(before);
  });

  it("suggests move for a near miss and shows it in the environments help", async () => {
    config = await writeSimConfig(sim, { omit: ["beta"] });
    const typo = await run(["environments", "mvoe", "alpha"]);
    expect(typo.code).toBe(64);
    expect(typo.stderr()).toMatch(/did you mean move\?/);
    const help = await run(["environments", "--help"]);
    expect(help.stdout()).toMatch(/move \[options\] \[alias\]/);
  });
});

/** The first environment of a `diagnose` report. */
function firstDiagnosis(report: Record<string, unknown>): unknown {
  return (report.environments as unknown[])[0];
}

describe("t3-connector diagnose names the next step", () => {
  it("for a machine that no longer answers at its address, environments move; after the move it passes", async () => {
    config = await writeSimConfig(sim, { url: { alpha: OLD_URL }, omit: ["beta"] });
    const lost = await run(["diagnose"]);
    expect(lost.code).toBe(1);
    expect(firstDiagnosis(lost.json())).toMatchObject({
      alias: "alpha",
      ok: false,
      error: {
        code: "unavailable",
        next: expect.stringContaining("t3-connector environments move alpha --url URL"),
      },
    });

    expect((await run(["environments", "move", "alpha", "--url", sim.environment("alpha").url])).code).toBe(
      0,
    );
    const found = await run(["diagnose"]);
    expect(found.code).toBe(0);
    expect(firstDiagnosis(found.json())).toMatchObject({ alias: "alpha", ok: true });
  });
});
