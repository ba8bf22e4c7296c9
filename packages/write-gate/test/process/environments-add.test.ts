import { once } from "node:events";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import os from "node:os";
import path from "node:path";
import { type Simulator, startSimulator } from "@t3-connector/t3-sim";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliIo, runCli } from "../../src/index.js";
import { parseCliArgs } from "../../src/process/cli-args.js";

let sim: Simulator;
let dir: string;
let writeConfig: string;

beforeAll(async () => {
  sim = await startSimulator({ environments: [{ alias: "alpha", seed: "demo" }] });
  dir = await mkdtemp(path.join(os.tmpdir(), "t3-connector-write-add-"));
  writeConfig = path.join(dir, "write.json");
});

afterAll(async () => {
  await sim?.close();
  await rm(dir, { recursive: true, force: true });
});

async function run(argv: string[], stdin?: string) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    stdout: { write: (text: string) => out.push(text) },
    stderr: { write: (text: string) => err.push(text) },
    env: {
      T3_CONNECTOR_WRITE_CONFIG: writeConfig,
      T3_CONNECTOR_CONFIG: path.join(dir, "no-read-config.json"),
    },
    ...(stdin === undefined ? {} : { stdin: [stdin] }),
  };
  const code = await runCli(argv, io);
  return { code, stdout: out.join(""), stderr: err.join("") };
}

describe("t3-connector-write environments add, remove and the gate's port", () => {
  it("parses the new commands and --log-level", () => {
    expect(parseCliArgs(["environments", "add", "mine", "--ssh", "box:4000"])).toEqual({
      kind: "environments-add",
      request: { alias: "mine", transport: { ssh: "box:4000" } },
    });
    expect(parseCliArgs(["gate", "--log-level", "warn"])).toEqual({ kind: "gate", logLevel: "warn" });
    expect(parseCliArgs(["bridge"])).toEqual({ kind: "bridge", logLevel: "info" });
    expect(parseCliArgs(["environments", "add", "mine"]).kind).toBe("usage-error");
  });

  it("pairs an environment for read + operate into a new write.json and verifies it", async () => {
    const alpha = sim.environment("alpha");
    const added = await run(["environments", "add", "mine", "--url", alpha.url], alpha.createPairingCode());
    expect(added.stderr).toBe("");
    expect(added.code).toBe(0);
    const report = JSON.parse(added.stdout);
    expect(report).toMatchObject({
      alias: "mine",
      ok: true,
      scopes: ["orchestration:operate", "orchestration:read"],
      diagnosis: { ok: true, environmentId: alpha.environmentId },
    });
    const config = JSON.parse(await readFile(writeConfig, "utf8"));
    expect(config).toEqual({
      port: 7433,
      stateDir: path.join(dir, "state"),
      environments: {
        mine: {
          environmentId: alpha.environmentId,
          url: alpha.url,
          tokenFile: path.join(dir, "tokens", "mine.operate.token"),
        },
      },
    });
    expect((await stat(config.environments.mine.tokenFile)).mode & 0o777).toBe(0o600);
  });

  it("prints the bridge's client config with this machine's paths", async () => {
    const printed = await run(["client-config", "claude-code"]);
    expect(printed.code).toBe(0);
    expect(printed.stdout).toContain(`-e T3_CONNECTOR_WRITE_CONFIG=${writeConfig}`);
    expect(printed.stdout).toMatch(/packages\/write-gate\/bin\/t3-connector-write\.js bridge\n$/);
    expect((await run(["client-config", "notepad"])).stderr).toMatch(
      /invalid_input: unknown client "notepad"/,
    );
  });

  it("names the port setting and the file when the gate's port is busy", async () => {
    const busy: Server = createServer();
    busy.listen(0, "127.0.0.1");
    await once(busy, "listening");
    const port = (busy.address() as { port: number }).port;
    try {
      const config = JSON.parse(await readFile(writeConfig, "utf8"));
      await writeFile(writeConfig, JSON.stringify({ ...config, port }), { mode: 0o600 });
      const gate = await run(["gate"]);
      expect(gate.code).toBe(69);
      expect(gate.stderr).toContain(
        `port_in_use: port ${port} on 127.0.0.1 is already in use (another gate?); stop that process or change "port" in ${writeConfig}`,
      );
    } finally {
      busy.close();
    }
  });

  it("removes the environment and its token file", async () => {
    const removed = await run(["environments", "remove", "mine"]);
    expect(removed.code).toBe(0);
    expect(JSON.parse(removed.stdout)).toMatchObject({ removed: "mine", environmentsLeft: 0 });
    await expect(stat(path.join(dir, "tokens", "mine.operate.token"))).rejects.toMatchObject({
      code: "ENOENT",
    });
    const again = await run(["environments", "remove", "mine"]);
    expect(again.stderr).toMatch(/environment_unknown: .* has no environment "mine"/);
  });

  it("after the last environment is removed, diagnose says how to add one and add works again", async () => {
    // The read side emptied too: the write CLI reads it only to refuse a shared token file.
    await writeFile(path.join(dir, "no-read-config.json"), JSON.stringify({ environments: {} }), {
      mode: 0o600,
    });
    const diagnose = await run(["diagnose"]);
    expect(diagnose.code).not.toBe(0);
    expect(diagnose.stderr).toContain(`no_environments: no environment is configured in ${writeConfig}`);
    expect(diagnose.stderr).toContain("t3-connector-write environments add <alias> --url URL");
    const alpha = sim.environment("alpha");
    const added = await run(["environments", "add", "again", "--url", alpha.url], alpha.createPairingCode());
    expect(added.stderr).toBe("");
    expect(added.code).toBe(0);
    expect(Object.keys(JSON.parse(await readFile(writeConfig, "utf8")).environments)).toEqual(["again"]);
  });
});
