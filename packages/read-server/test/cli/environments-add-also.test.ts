import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { PassThrough, Writable } from "node:stream";
import type { TerminalPrompt } from "@t3-connector/core/cli-support";
import { chooseOperateConfigs } from "@t3-connector/core/pairing";
import { type Simulator, startSimulator } from "@t3-connector/t3-sim";
import { captureIo } from "@t3-connector/test-support/sim-config";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseCliArgs } from "../../src/cli/args.js";
import { runCli } from "../../src/cli.js";
import { exchangeBootstrapCode } from "../support/bootstrap-code.js";

// `environments add --also`: what is refused before any pairing code is spent, and what a failed
// operate exchange leaves behind. The configs that work end to end are in
// test/e2e/one-pairing-all-configs.test.ts.
let sim: Simulator;
let root: string;
let next = 0;

beforeAll(async () => {
  sim = await startSimulator({ environments: [{ alias: "alpha", seed: "demo" }] });
  root = await mkdtemp(path.join(os.tmpdir(), "t3-add-also-"));
});

afterAll(async () => {
  await sim?.close();
  await rm(root, { recursive: true, force: true });
});

function machine(extra: Record<string, string> = {}) {
  const dir = path.join(root, `m${next++}`);
  const env = {
    T3_CONNECTOR_CONFIG: path.join(dir, "config.json"),
    T3_CONNECTOR_WRITE_CONFIG: path.join(dir, "write.json"),
    T3_CONNECTOR_OPS_CONFIG: path.join(dir, "ops.json"),
    ...extra,
  };
  return { dir, env };
}

async function add(env: Record<string, string>, also: string, stdin: string) {
  const url = sim.environment("alpha").url;
  const captured = captureIo(env, stdin);
  const code = await runCli(
    ["environments", "add", "laptop", "--url", url, "--projects", "all", "--also", also],
    captured.io,
  );
  return { code, ...captured };
}

/** True when the simulator still accepts `code` (it was never exchanged). */
async function stillUnspent(code: string): Promise<boolean> {
  const answer = await exchangeBootstrapCode(sim.environment("alpha").url, code);
  return answer.status === 200;
}

const exists = (file: string) =>
  stat(file).then(
    () => true,
    () => false,
  );

describe("environments add --also", () => {
  it("reports a refused operate code beside the added read side, leaving no operate file", async () => {
    const { dir, env } = machine();
    const readCode = sim.environment("alpha").createPairingCode();
    const added = await add(env, "write,ops", `${readCode}\nZZZZZZZZZZZZ\n`);
    expect(added.code).toBe(1);
    const report = added.json();
    expect(report).toMatchObject({
      alias: "laptop",
      scopes: ["orchestration:read"],
      ok: false,
      alsoAdded: [],
    });
    expect(report.alsoFailed).toMatchObject({
      code: "pairing_failed",
      configs: [env.T3_CONNECTOR_WRITE_CONFIG, env.T3_CONNECTOR_OPS_CONFIG],
    });
    expect(String((report.alsoFailed as { next: string }).next)).toContain(
      "t3-connector-write environments add laptop",
    );
    expect(await exists(env.T3_CONNECTOR_CONFIG)).toBe(true);
    for (const file of [
      env.T3_CONNECTOR_WRITE_CONFIG,
      env.T3_CONNECTOR_OPS_CONFIG,
      path.join(dir, "tokens", "laptop.operate.token"),
      path.join(dir, "tokens", "laptop.ops.token"),
    ]) {
      expect(await exists(file)).toBe(false);
    }
  });

  it("refuses one code where two are needed, before spending it", async () => {
    const { env } = machine();
    const code = sim.environment("alpha").createPairingCode();
    const added = await add(env, "write,ops", `${code}\n`);
    expect(added.code).toBe(64);
    expect(added.stderr()).toMatch(
      /invalid_input: stdin carries 1 non-empty line\(s\), but this needs 2 pairing codes/,
    );
    expect(await exists(env.T3_CONNECTOR_CONFIG)).toBe(false);
    expect(await stillUnspent(code)).toBe(true);
  });

  it("refuses an alias that ops.json gives another environment as an extra name", async () => {
    const { dir, env } = machine();
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const ops = {
      environments: {
        desk: {
          environmentId: "env-desk",
          url: "https://desk.example",
          tokenFile: "/x/desk.token",
          aliases: ["laptop"],
        },
      },
    };
    await writeFile(env.T3_CONNECTOR_OPS_CONFIG, JSON.stringify(ops), { mode: 0o600 });
    const codes = [
      sim.environment("alpha").createPairingCode(),
      sim.environment("alpha").createPairingCode(),
    ];
    const added = await add(env, "ops", `${codes.join("\n")}\n`);
    expect(added.code).toBe(78);
    expect(added.stderr()).toMatch(
      /environment_exists: .*ops\.json already uses "laptop" as another name of "desk"/,
    );
    expect(JSON.parse(await readFile(env.T3_CONNECTOR_OPS_CONFIG, "utf8"))).toEqual(ops);
    for (const code of codes) expect(await stillUnspent(code)).toBe(true);
  });

  it("refuses ops while ops reads its environments from T3_CONNECTOR_OPS_ENVIRONMENTS", async () => {
    const { env } = machine({ T3_CONNECTOR_OPS_ENVIRONMENTS: '{"environments":{}}' });
    const codes = [
      sim.environment("alpha").createPairingCode(),
      sim.environment("alpha").createPairingCode(),
    ];
    const added = await add(env, "write,ops", `${codes.join("\n")}\n`);
    expect(added.code).toBe(64);
    expect(added.stderr()).toMatch(/invalid_input: T3_CONNECTOR_OPS_ENVIRONMENTS is set/);
    expect(await exists(env.T3_CONNECTOR_WRITE_CONFIG)).toBe(false);
  });

  it("refuses an operate token file that is a read token file of the read config, spending no code", async () => {
    const { dir, env } = machine();
    const alpha = sim.environment("alpha");
    // Another environment's read token sits where the gate's operate token would go.
    await mkdir(path.join(dir, "tokens"), { recursive: true, mode: 0o700 });
    const shared = path.join(dir, "tokens", "laptop.operate.token");
    await writeFile(shared, `${alpha.issueToken({ scopes: ["orchestration:read"] })}\n`, { mode: 0o600 });
    const read = {
      environments: {
        desk: {
          environmentId: "env-desk",
          url: "https://desk.example",
          tokenFile: shared,
          allowedProjects: ["p"],
        },
      },
    };
    await writeFile(env.T3_CONNECTOR_CONFIG, JSON.stringify(read), { mode: 0o600 });
    const codes = [alpha.createPairingCode(), alpha.createPairingCode()];
    const added = await add(env, "write", `${codes.join("\n")}\n`);
    expect(added.code).toBe(78);
    expect(added.stderr()).toMatch(
      /token_file_invalid: .*laptop\.operate\.token would hold the operate token/,
    );
    expect(JSON.parse(await readFile(env.T3_CONNECTOR_CONFIG, "utf8"))).toEqual(read);
    expect(await exists(env.T3_CONNECTOR_WRITE_CONFIG)).toBe(false);
    for (const code of codes) expect(await stillUnspent(code)).toBe(true);
  });

  it("with --also write fills write.json and leaves ops.json alone", async () => {
    const { env } = machine();
    const codes = [
      sim.environment("alpha").createPairingCode(),
      sim.environment("alpha").createPairingCode(),
    ];
    const added = await add(env, "write", `${codes.join("\n")}\n`);
    expect(added.code).toBe(0);
    expect((added.json().alsoAdded as { config: string }[]).map((row) => row.config)).toEqual(["write"]);
    expect(await exists(env.T3_CONNECTOR_WRITE_CONFIG)).toBe(true);
    expect(await exists(env.T3_CONNECTOR_OPS_CONFIG)).toBe(false);
    // The label T3 shows for the session names only the gate, the one holder of this token.
    const revoke = added.json().revoke as { token: string; clientLabel: string }[];
    expect(revoke.map((advice) => advice.token)).toEqual(["read", "operate"]);
    expect(revoke[1]?.clientLabel).toMatch(/^t3-connector gate \(/);
  });
});

describe("pair --also", () => {
  it("renews the read token and the operate token that write.json and ops.json name, rewriting no config", async () => {
    const { env } = machine();
    const alpha = sim.environment("alpha");
    const first = [alpha.createPairingCode(), alpha.createPairingCode()];
    expect((await add(env, "write,ops", `${first.join("\n")}\n`)).code).toBe(0);
    const configs = [env.T3_CONNECTOR_CONFIG, env.T3_CONNECTOR_WRITE_CONFIG, env.T3_CONNECTOR_OPS_CONFIG];
    const before = await Promise.all(configs.map((file) => readFile(file, "utf8")));
    const added = JSON.parse(before[1] as string).environments.laptop.tokenFile as string;
    const oldOperate = await readFile(added, "utf8");

    const captured = captureIo(env, `${alpha.createPairingCode()}\n${alpha.createPairingCode()}\n`);
    expect(await runCli(["pair", "--environment", "laptop", "--also", "write,ops"], captured.io)).toBe(0);
    const report = captured.json();
    expect(report).toMatchObject({ environment: "laptop", scopes: ["orchestration:read"] });
    expect(
      (report.alsoPaired as { config: string; alias: string }[]).map((row) => [row.config, row.alias]),
    ).toEqual([
      ["write", "laptop"],
      ["ops", "laptop"],
    ]);
    expect(await Promise.all(configs.map((file) => readFile(file, "utf8")))).toEqual(before);
    const renewed = await readFile(added, "utf8");
    expect(renewed).not.toBe(oldOperate);
    const opsFile = JSON.parse(before[2] as string).environments.laptop.tokenFile as string;
    expect(await readFile(opsFile, "utf8")).toBe(renewed);
  });

  it("refuses before spending a code when write.json does not have the environment", async () => {
    const { env } = machine();
    const alpha = sim.environment("alpha");
    expect((await add(env, "none", `${alpha.createPairingCode()}\n`)).code).toBe(0);
    const codes = [alpha.createPairingCode(), alpha.createPairingCode()];
    const captured = captureIo(env, `${codes.join("\n")}\n`);
    expect(await runCli(["pair", "--environment", "laptop", "--also", "write"], captured.io)).toBe(78);
    expect(captured.stderr()).toMatch(
      /config_not_found: write config not found at .*write\.json; no pairing code was used/,
    );
    for (const code of codes) expect(await stillUnspent(code)).toBe(true);
  });
});

describe("environments add on a terminal", () => {
  it("asks whether to fill write.json and ops.json, then for each code by name, and fills all three", async () => {
    const { env } = machine();
    const alpha = sim.environment("alpha");
    // A stream that says it is a terminal: each answer is typed only once its question is on screen.
    const stdin = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => undefined });
    const answers: Array<[RegExp, string]> = [
      [/write gate \(write\.json\) and ops \(ops\.json\)\? .*\[y\/N\]/, "y"],
      [/for the read-only token/, alpha.createPairingCode()],
      [/for the operate token/, alpha.createPairingCode()],
    ];
    let screen = "";
    const asked: string[] = [];
    // readline needs a real stream to draw the prompt on.
    const stderr = new Writable({
      write(chunk: Buffer, _encoding, done) {
        screen += chunk.toString();
        const next = answers[0];
        if (next?.[0].test(screen)) {
          answers.shift();
          asked.push(next[0].source);
          screen = "";
          setImmediate(() => stdin.write(`${next[1]}\n`));
        }
        done();
      },
    });
    const out: string[] = [];
    const io = { stdout: { write: (text: string) => out.push(text) }, stderr, stdin, env };
    const url = alpha.url;
    const code = await runCli(["environments", "add", "laptop", "--url", url, "--projects", "all"], io);
    expect(asked).toHaveLength(3);
    expect(code).toBe(0);
    const report = JSON.parse(out.join(""));
    expect(report.alsoAdded.map((row: { config: string }) => row.config)).toEqual(["write", "ops"]);
    for (const file of [
      env.T3_CONNECTOR_CONFIG,
      env.T3_CONNECTOR_WRITE_CONFIG,
      env.T3_CONNECTOR_OPS_CONFIG,
    ]) {
      expect(await exists(file)).toBe(true);
    }
  });
});

describe("whether to fill the other configs", () => {
  function scripted(answer: string) {
    const asked: string[] = [];
    const prompt: TerminalPrompt = {
      ask: async (question) => {
        asked.push(question);
        return answer;
      },
      close: () => undefined,
    };
    return { prompt, asked };
  }

  it("asks on a terminal, and only a yes fills both", async () => {
    const yes = scripted("y");
    expect(await chooseOperateConfigs(undefined, "laptop", yes.prompt)).toEqual(["write", "ops"]);
    expect(yes.asked[0]).toContain("write gate (write.json) and ops (ops.json)");
    expect(await chooseOperateConfigs(undefined, "laptop", scripted("").prompt)).toEqual([]);
  });

  it("takes the flag without asking, and fills nothing else without a terminal", async () => {
    const never = scripted("y");
    expect(await chooseOperateConfigs([], "laptop", never.prompt)).toEqual([]);
    expect(never.asked).toEqual([]);
    expect(await chooseOperateConfigs(undefined, "laptop", undefined)).toEqual([]);
  });

  it("parses --also write,ops, write, none, and refuses anything else", () => {
    const request = (also: string) =>
      parseCliArgs(["environments", "add", "a", "--url", "https://x", "--also", also]);
    expect(request("write,ops")).toMatchObject({ request: { also: ["write", "ops"] } });
    expect(request("ops")).toMatchObject({ request: { also: ["ops"] } });
    expect(request("none")).toMatchObject({ request: { also: [] } });
    expect(parseCliArgs(["pair", "--environment", "a", "--also", "write"])).toEqual({
      kind: "pair",
      environment: "a",
      also: ["write"],
    });
    expect(request("read")).toMatchObject({
      kind: "usage-error",
      problem: expect.stringContaining("--also takes"),
    });
  });
});
