import { readFile, writeFile } from "node:fs/promises";
import { EXIT_CODES } from "@t3-connector/core/cli-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runOps } from "./support/cli-run.js";
import { type SimOps, startSimOps } from "./support/sim-ops.js";

let setup: SimOps;
let env: Record<string, string>;

// A port nothing listens on: where the machine used to be.
const OLD_URL = "http://127.0.0.1:9";

beforeAll(async () => {
  setup = await startSimOps();
  const document = JSON.parse(await readFile(setup.configPath, "utf8"));
  document.environments.alpha.url = OLD_URL;
  await writeFile(setup.configPath, `${JSON.stringify(document, null, 2)}\n`, { mode: 0o600 });
  env = { T3_CONNECTOR_OPS_CONFIG: setup.configPath };
});

afterAll(async () => {
  await setup?.close();
});

describe("t3-connector-ops environments move", () => {
  it("refuses another machine's server and an unknown alias, leaving ops.json byte-identical", async () => {
    const before = await readFile(setup.configPath, "utf8");
    const mismatch = await runOps(["environments", "move", "alpha", "--url", setup.env("beta").url], { env });
    expect(mismatch.code).toBe(EXIT_CODES.config);
    expect(mismatch.stderr).toMatch(/environment_mismatch: .*environments remove alpha/);
    const unknown = await runOps(["environments", "move", "gamma", "--url", setup.env("alpha").url], { env });
    expect(unknown.code).toBe(EXIT_CODES.notFound);
    expect(unknown.stderr).toMatch(/configured: alpha, beta/);
    const invalid = await runOps(["environments", "move", "alpha", "--url", "not a url"], { env });
    expect(invalid.code).toBe(EXIT_CODES.usage);
    expect(await readFile(setup.configPath, "utf8")).toBe(before);
  });

  it("moves the environment to its new URL keeping its token file and extra names, then reaches it", async () => {
    const alpha = setup.env("alpha");
    const before = JSON.parse(await readFile(setup.configPath, "utf8")).environments.alpha;
    const token = await readFile(before.tokenFile, "utf8");
    const moved = await runOps(["environments", "move", "alpha", "--url", alpha.url], { env });
    expect(moved.stderr).toBe("");
    expect(moved.code).toBe(0);
    expect(moved.json()).toMatchObject({
      alias: "alpha",
      configPath: setup.configPath,
      from: OLD_URL,
      to: alpha.url,
      environmentId: alpha.environmentId,
      unchanged: false,
      tokenWorks: true,
    });
    const after = JSON.parse(await readFile(setup.configPath, "utf8")).environments.alpha;
    expect(after).toEqual({ ...before, url: alpha.url });
    expect(after.aliases).toEqual(["alpha-box"]);
    expect(await readFile(before.tokenFile, "utf8")).toBe(token);
    const projects = await runOps(["alpha", "projects"], { env });
    expect(projects.code).toBe(0);
    const again = await runOps(["environments", "move", "alpha", "--url", alpha.url], { env });
    expect(again.json()).toMatchObject({ unchanged: true });
  });
});
