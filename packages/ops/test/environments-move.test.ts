import { readFile, writeFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXIT_CODES } from "../src/exit-codes.js";
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
    expect(moved.json()).toEqual({
      alias: "alpha",
      configPath: setup.configPath,
      from: OLD_URL,
      to: alpha.url,
      environmentId: alpha.environmentId,
      unchanged: false,
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

describe("t3-connector-ops environments move of an entry allowed plain http to another host", () => {
  // The machine's new name on a network that encrypts by itself; no second host runs here, so this
  // fetch alone carries its requests to the simulated machine (the probe still asks the real server).
  const LAN_URL = "http://box.lan:3773";
  const toSimulator = (target: string) => (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : input);
    return fetch(`${target}${url.pathname}${url.search}`, init);
  };

  it("keeps insecureHttp and accepts the plain-http address; without it the same address is refused", async () => {
    const { moveEnvironment } = await import("../src/environments-move.js");
    const alpha = setup.env("alpha");
    const document = JSON.parse(await readFile(setup.configPath, "utf8"));
    const move = () =>
      moveEnvironment(
        { alias: "alpha", transport: { url: LAN_URL } },
        { configPath: setup.configPath, fetch: toSimulator(alpha.url) as typeof fetch },
      );

    document.environments.alpha = { ...document.environments.alpha, url: OLD_URL, insecureHttp: false };
    await writeFile(setup.configPath, `${JSON.stringify(document, null, 2)}\n`, { mode: 0o600 });
    const before = await readFile(setup.configPath, "utf8");
    await expect(move()).rejects.toMatchObject({ code: "invalid_input" });
    expect(await readFile(setup.configPath, "utf8")).toBe(before);

    document.environments.alpha.insecureHttp = true;
    await writeFile(setup.configPath, `${JSON.stringify(document, null, 2)}\n`, { mode: 0o600 });
    await expect(move()).resolves.toMatchObject({ to: LAN_URL, environmentId: alpha.environmentId });
    const after = JSON.parse(await readFile(setup.configPath, "utf8")).environments.alpha;
    expect(after).toEqual({ ...document.environments.alpha, url: LAN_URL, insecureHttp: true });
  });
});
