import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { writeTokenFile } from "@t3-connector/core/config";
import { type Simulator, startSimulator } from "@t3-connector/t3-sim";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliIo, runCli } from "../../src/index.js";
import { parseCliArgs } from "../../src/process/cli-args.js";

let sim: Simulator;
let dir: string;
let writeConfig: string;
let tokenFile: string;

// A port nothing listens on: where the machine used to be.
const OLD_URL = "http://127.0.0.1:9";

beforeAll(async () => {
  sim = await startSimulator({
    environments: [
      { alias: "alpha", seed: "demo" },
      { alias: "beta", seed: "demo" },
    ],
  });
  dir = await mkdtemp(path.join(os.tmpdir(), "t3-connector-write-move-"));
  writeConfig = path.join(dir, "write.json");
  tokenFile = path.join(dir, "tokens", "alpha.operate.token");
  const alpha = sim.environment("alpha");
  await writeTokenFile(tokenFile, alpha.operateToken);
  const document = {
    port: 7433,
    stateDir: path.join(dir, "state"),
    environments: { alpha: { environmentId: alpha.environmentId, url: OLD_URL, tokenFile } },
  };
  await writeFile(writeConfig, `${JSON.stringify(document, null, 2)}\n`, { mode: 0o600 });
});

afterAll(async () => {
  await sim?.close();
  await rm(dir, { recursive: true, force: true });
});

async function run(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    stdout: { write: (text: string) => out.push(text) },
    stderr: { write: (text: string) => err.push(text) },
    env: {
      T3_CONNECTOR_WRITE_CONFIG: writeConfig,
      T3_CONNECTOR_CONFIG: path.join(dir, "no-read-config.json"),
    },
  };
  const code = await runCli(argv, io);
  return { code, stdout: out.join(""), stderr: err.join("") };
}

describe("t3-connector-write environments move", () => {
  it("parses move with --url or --ssh HOST:PORT, and needs exactly one", () => {
    expect(parseCliArgs(["environments", "move", "alpha", "--ssh", "box:4000"])).toEqual({
      kind: "environments-move",
      alias: "alpha",
      transport: { ssh: "box:4000" },
    });
    expect(parseCliArgs(["environments", "move", "alpha"])).toMatchObject({
      kind: "usage-error",
      problem: "environments move needs exactly one of --url URL or --ssh HOST[:PORT]",
    });
  });

  it("refuses another machine's server, leaving write.json byte-identical", async () => {
    const before = await readFile(writeConfig, "utf8");
    const refused = await run(["environments", "move", "alpha", "--url", sim.environment("beta").url]);
    expect(refused.code).toBe(78);
    expect(refused.stderr).toMatch(/environment_mismatch: /);
    expect(await readFile(writeConfig, "utf8")).toBe(before);
  });

  it("diagnose names environments move as the next step while nothing answers at the configured address", async () => {
    const lost = await run(["diagnose"]);
    expect(lost.code).toBe(1);
    expect(JSON.parse(lost.stdout).environments[0]).toMatchObject({
      alias: "alpha",
      ok: false,
      error: {
        code: "unavailable",
        next: expect.stringContaining("t3-connector-write environments move alpha --url URL"),
      },
    });
  });

  it("moves the environment to its new URL, keeping the operate token file untouched", async () => {
    const alpha = sim.environment("alpha");
    const token = await readFile(tokenFile, "utf8");
    const moved = await run(["environments", "move", "alpha", "--url", alpha.url]);
    expect(moved.stderr).toBe("");
    expect(moved.code).toBe(0);
    expect(JSON.parse(moved.stdout)).toMatchObject({
      alias: "alpha",
      configPath: writeConfig,
      from: OLD_URL,
      to: alpha.url,
      environmentId: alpha.environmentId,
      unchanged: false,
      tokenWorks: true,
    });
    const config = JSON.parse(await readFile(writeConfig, "utf8"));
    expect(config.environments.alpha).toEqual({
      environmentId: alpha.environmentId,
      url: alpha.url,
      tokenFile,
    });
    expect(await readFile(tokenFile, "utf8")).toBe(token);
    const diagnosed = await run(["diagnose"]);
    expect(diagnosed.code).toBe(0);
  });
});
