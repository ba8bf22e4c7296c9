import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { type Simulator, startSimulator } from "@t3-connector/t3-sim";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { parseWriteConfig } from "../../src/config/index.js";
import { moveEnvironmentInConfig } from "../../src/pairing/index.js";
import { caughtConnectorError } from "../support/caught-connector-error.js";

let sim: Simulator;
let dir: string;
let configPath: string;
let tokenFile: string;

// A port nothing listens on: the machine's old address.
const OLD_URL = "http://127.0.0.1:9";

beforeAll(async () => {
  sim = await startSimulator({
    environments: [
      { alias: "alpha", seed: "demo" },
      { alias: "beta", seed: "demo" },
    ],
  });
  dir = await mkdtemp(path.join(os.tmpdir(), "t3-connector-move-"));
  configPath = path.join(dir, "write.json");
  tokenFile = path.join(dir, "tokens", "alpha.operate.token");
});

afterAll(async () => {
  await sim?.close();
  await rm(dir, { recursive: true, force: true });
});

beforeEach(async () => {
  const alpha = sim.environment("alpha");
  const document = {
    port: 7433,
    stateDir: path.join(dir, "state"),
    environments: {
      alpha: { environmentId: alpha.environmentId, url: OLD_URL, tokenFile },
    },
  };
  await writeFile(configPath, `${JSON.stringify(document, null, 2)}\n`, { mode: 0o600 });
});

function move(alias: string, transport: { url: string } | { ssh: string }) {
  return moveEnvironmentInConfig({
    alias,
    transport,
    configPath,
    configName: "write config",
    validate: (document) => {
      parseWriteConfig(document, { path: configPath });
    },
  });
}

describe("moveEnvironmentInConfig", () => {
  it("points the entry at the new address when the server there announces the same environmentId, keeping its other keys", async () => {
    const alpha = sim.environment("alpha");
    const moved = await move("alpha", { url: alpha.url });
    expect(moved).toEqual({
      alias: "alpha",
      configPath,
      from: OLD_URL,
      to: alpha.url,
      environmentId: alpha.environmentId,
      unchanged: false,
    });
    const config = JSON.parse(await readFile(configPath, "utf8"));
    expect(config.environments.alpha).toEqual({
      environmentId: alpha.environmentId,
      url: alpha.url,
      tokenFile,
    });
    expect(config.port).toBe(7433);
  });

  it("answers unchanged and writes nothing when the entry already has that address", async () => {
    const alpha = sim.environment("alpha");
    await move("alpha", { url: alpha.url });
    const before = await readFile(configPath, "utf8");
    expect(await move("alpha", { url: alpha.url })).toMatchObject({ unchanged: true, from: alpha.url });
    expect(await readFile(configPath, "utf8")).toBe(before);
  });

  it("refuses a server that announces another environmentId, naming both, and leaves the file byte-identical", async () => {
    const alpha = sim.environment("alpha");
    const beta = sim.environment("beta");
    const before = await readFile(configPath, "utf8");
    const error = await caughtConnectorError(move("alpha", { url: beta.url }));
    expect(error.code).toBe("environment_mismatch");
    expect(error.message).toContain(alpha.environmentId);
    expect(error.message).toContain(beta.environmentId);
    expect(error.message).toMatch(/environments remove alpha, then environments add alpha/);
    expect(await readFile(configPath, "utf8")).toBe(before);
  });

  it("refuses an unknown alias, listing the configured ones", async () => {
    const error = await caughtConnectorError(move("gamma", { url: sim.environment("alpha").url }));
    expect(error.code).toBe("environment_unknown");
    expect(error.message).toContain('has no environment "gamma"; configured: alpha');
  });

  it("refuses an invalid --url and --ssh with add's messages, contacting nothing", async () => {
    const url = await caughtConnectorError(move("alpha", { url: "ftp://example.test" }));
    expect(url.code).toBe("invalid_input");
    expect(url.message).toMatch(/^--url ftp:\/\/example\.test /);
    const ssh = await caughtConnectorError(move("alpha", { ssh: "host:99999" }));
    expect(ssh.message).toBe("--ssh host:99999: the port must be 1-65535");
  });
});
