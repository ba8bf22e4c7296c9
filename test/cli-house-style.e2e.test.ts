import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { runCli as runReadCli } from "@t3-connector/read-server";
import { type Simulator, startSimulator } from "@t3-connector/t3-sim";
import { type BuiltBinName, builtBin } from "@t3-connector/test-support/built-bins";
import { createFakeSsh } from "@t3-connector/test-support/fake-ssh";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// The house style of the command lines (ADR 0030, docs/cli.md), held on the built CLIs as a user
// runs them: each command's own help, a suggestion and exit 64 for a typo, help on no arguments,
// one spelling of --ssh, and the same keys for the same answer.

let work: string;
let sim: Simulator;

beforeAll(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), "t3-connector-house-style-"));
  sim = await startSimulator({ environments: [{ alias: "alpha", seed: "demo" }] });
});

afterAll(async () => {
  await sim?.close();
  await rm(work, { recursive: true, force: true });
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a built CLI with stdin a pipe (not a terminal), as a client or a script starts it. */
function run(
  bin: BuiltBinName,
  args: string[],
  options: { env?: Record<string, string>; stdin?: string } = {},
) {
  return new Promise<Run>((resolve, reject) => {
    const child = spawn(process.execPath, [builtBin(bin), ...args], {
      env: {
        ...process.env,
        T3_CONNECTOR_CONFIG: path.join(work, "config.json"),
        T3_CONNECTOR_WRITE_CONFIG: path.join(work, "write.json"),
        T3_CONNECTOR_OPS_CONFIG: path.join(work, "ops.json"),
        ...options.env,
      },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.stdin ?? "");
  });
}

describe("each command has its own help", () => {
  it.each<[BuiltBinName, string[], string]>([
    ["t3-connector", ["serve"], "--allowed-host"],
    ["t3-connector", ["environments", "add"], "--ssh <host[:port]>"],
    ["t3-connector", ["events", "status"], "--state-dir"],
    ["t3-connector", ["oauth", "revoke"], "Usage: t3-connector oauth revoke"],
    ["t3-connector-write", ["gate"], "--enroll"],
    ["t3-connector-write", ["reconcile"], "--all-uncertain"],
    ["t3-connector-write", ["journal", "verify"], "--json"],
    ["t3-connector-write", ["environments", "add"], "--ssh <host[:port]>"],
    ["t3-connector", ["environments", "move"], "--ssh <host[:port]>"],
    ["t3-connector-write", ["environments", "move"], "--ssh <host[:port]>"],
  ])("%s %j: X --help and help X print X's help, not the global one", async (bin, command, mark) => {
    const global = await run(bin, ["--help"]);
    const asFlag = await run(bin, [...command, "--help"]);
    const asCommand = await run(bin, ["help", ...command]);
    for (const answer of [asFlag, asCommand]) {
      expect(answer.code).toBe(0);
      expect(answer.stderr).toBe("");
      expect(answer.stdout).toContain(`Usage: ${bin} ${command.join(" ")}`);
      expect(answer.stdout).toContain(mark);
      expect(answer.stdout).not.toBe(global.stdout);
    }
    expect(asFlag.stdout).toBe(asCommand.stdout);
  });
});

describe("a typo gets a suggestion, exit 64 and a pointer to the help, not the usage", () => {
  it.each<[BuiltBinName, string[], string, string]>([
    ["t3-connector", ["environmnts"], "environmnts (did you mean environments?)", ""],
    ["t3-connector", ["environments", "mvoe"], "mvoe (did you mean move?)", " environments"],
    ["t3-connector-write", ["environments", "mvoe"], "mvoe (did you mean move?)", " environments"],
    ["t3-connector", ["serve", "--htp"], "--htp (did you mean --http?)", " serve"],
    ["t3-connector", ["events", "stauts"], "stauts (did you mean status?)", " events"],
    ["t3-connector-write", ["brigde"], "brigde (did you mean bridge?)", ""],
    [
      "t3-connector-write",
      ["reconcile", "--all-uncertian"],
      "--all-uncertian (did you mean --all-uncertain?)",
      " reconcile",
    ],
    ["t3-connector-write", ["help", "jornal"], "jornal (did you mean journal?)", ""],
    ["t3-connector-ops", ["lss"], "lss (did you mean ls?)", ""],
    ["t3-connector-ops", ["environments", "mvoe"], "mvoe (did you mean move?)", " environments"],
    ["t3-sim", ["serv"], "serv (did you mean serve?)", ""],
    ["t3-sim", ["serve", "--seeed", "demo"], "--seeed (did you mean --seed?)", " serve"],
  ])("%s %j", async (bin, argv, problem, command) => {
    const answer = await run(bin, argv);
    expect(answer.code).toBe(64);
    expect(answer.stdout).toBe("");
    expect(answer.stderr).toBe(
      `${bin}: invalid_input: unknown command or argument: ${problem}\nRun '${bin}${command} --help' for its usage.\n`,
    );
  });
});

describe("-v is --version on every CLI", () => {
  it.each<BuiltBinName>(["t3-connector", "t3-connector-write", "t3-connector-ops", "t3-sim"])(
    "%s -v",
    async (bin) => {
      const short = await run(bin, ["-v"]);
      const long = await run(bin, ["--version"]);
      expect(short.code).toBe(0);
      expect(short.stderr).toBe("");
      expect(short.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
      expect(short.stdout).toBe(long.stdout);
    },
  );
});

describe("no arguments", () => {
  it.each<[BuiltBinName, string]>([
    ["t3-connector", "serve"],
    ["t3-connector-write", "bridge"],
  ])(
    "%s started without a terminal names the command a client runs, exit 64, nothing on stdout",
    async (bin, server) => {
      const answer = await run(bin, []);
      expect(answer.code).toBe(64);
      expect(answer.stdout).toBe("");
      expect(answer.stderr).toContain(`an MCP client runs '${bin} ${server}'`);
      expect(answer.stderr).toContain(`Run '${bin} --help'`);
    },
  );

  it("t3-connector at a terminal prints its help and exits 0", async () => {
    let stdout = "";
    const io = {
      stdout: { write: (text: string) => (stdout += text) },
      stderr: { write: () => true },
      stdinIsTTY: true,
    };
    expect(await runReadCli([], io)).toBe(0);
    expect(stdout).toContain("Usage: t3-connector <command>");
  });
});

describe("--ssh HOST[:PORT] is the one spelling", () => {
  it.each<BuiltBinName>(["t3-connector", "t3-connector-write", "t3-connector-ops"])(
    "%s accepts --remote-port as a deprecated alias, warning on stderr with the new spelling",
    async (bin) => {
      const answer = await run(bin, [
        "environments",
        "add",
        "box",
        "--ssh",
        "nohost.invalid",
        "--remote-port",
        "4000",
      ]);
      expect(answer.stderr).toContain(
        `${bin}: warning: --remote-port is deprecated: write --ssh nohost.invalid:4000`,
      );
      // It went on to the (unreachable) host: the alias was read as --ssh nohost.invalid:4000.
      expect(answer.stderr).toContain("tunnel_failed");
    },
  );

  it.each<BuiltBinName>(["t3-connector", "t3-connector-write", "t3-connector-ops"])(
    "%s refuses --remote-port with --url",
    async (bin) => {
      const answer = await run(bin, [
        "environments",
        "add",
        "box",
        "--url",
        "http://127.0.0.1:9",
        "--remote-port",
        "4000",
      ]);
      expect(answer.code).toBe(64);
      expect(answer.stderr).toContain("--remote-port goes with --ssh, not --url");
    },
  );
});

describe("the same keys for the same answer", () => {
  // One environments command serves the three CLIs (ADR 0058): each one's words reach it, and each
  // answers add, move, pair, diagnose and remove with the same keys (what they mean: the shared
  // suite, test/environments-command.test.ts).
  const CLIS = ["t3-connector", "t3-connector-write", "t3-connector-ops"] as const;
  const OPERATE = ["orchestration:read", "orchestration:operate"];
  const code = (bin: (typeof CLIS)[number]) =>
    sim.environment("alpha").createPairingCode(bin === "t3-connector" ? {} : { scopes: OPERATE });
  /** One command in each CLI; the answers, each checked to have exited 0. */
  async function inEach(args: (bin: (typeof CLIS)[number]) => string[], stdin?: typeof code) {
    const answers: Record<string, unknown>[] = [];
    for (const bin of CLIS) {
      const answer = await run(bin, args(bin), stdin === undefined ? {} : { stdin: `${stdin(bin)}\n` });
      expect(answer.code, `${bin}: ${answer.stderr}`).toBe(0);
      answers.push(JSON.parse(answer.stdout));
    }
    return answers;
  }
  const keys = (answers: Record<string, unknown>[]) => answers.map((answer) => Object.keys(answer).sort());

  it("environments add, move, pair, diagnose and remove answer the same keys in t3-connector, t3-connector-write and t3-connector-ops", async () => {
    const alpha = sim.environment("alpha");
    const projects = (bin: string) => (bin === "t3-connector" ? ["--projects", "all"] : []);
    const added = await inEach(
      (bin) => ["environments", "add", "mine", "--url", alpha.url, ...projects(bin)],
      code,
    );
    expect(added.map((answer) => [answer.alias, answer.configPath])).toEqual(
      ["config.json", "write.json", "ops.json"].map((file) => ["mine", path.join(work, file)]),
    );
    // Each CLI chooses the path the same way: tokens/<alias>.<kind>.token beside its config.
    expect(added.map((answer) => answer.tokenFile)).toEqual(
      ["read", "operate", "ops"].map((kind) => path.join(work, "tokens", `mine.${kind}.token`)),
    );
    const moved = await inEach(() => ["environments", "move", "mine", "--url", alpha.url]);
    expect(moved.map(({ from, to, unchanged, tokenWorks }) => ({ from, to, unchanged, tokenWorks }))).toEqual(
      CLIS.map(() => ({ from: alpha.url, to: alpha.url, unchanged: true, tokenWorks: true })),
    );
    const paired = await inEach(
      (bin) => (bin === "t3-connector-ops" ? ["mine", "pair"] : ["pair", "--environment", "mine"]),
      code,
    );
    const diagnosed = await inEach(() => ["diagnose", "--projects"]);
    const removed = await inEach(() => ["environments", "remove", "mine"]);
    for (const answers of [added, moved, paired, diagnosed, removed]) {
      const [read, ...operate] = keys(answers);
      expect(operate).toEqual([read, read]);
    }
    const environments = diagnosed.map(
      (answer) => (answer.environments as Record<string, unknown>[])[0] ?? {},
    );
    // The read config alone limits projects, and says which of them exist.
    const [read, write, ops] = environments.map((environment) => Object.keys(environment).sort());
    expect(read?.filter((key) => !key.endsWith("Projects"))).toEqual(write);
    expect(ops).toEqual(write);
  });

  it("diagnose --deep answers one report in the three CLIs, nothing differing on the simulator", async () => {
    const alpha = sim.environment("alpha");
    const projects = (bin: string) => (bin === "t3-connector" ? ["--projects", "all"] : []);
    await inEach((bin) => ["environments", "add", "deep", "--url", alpha.url, ...projects(bin)], code);
    // The deep probe (ADR 0069) through each CLI's words, the flag declared once for all three.
    const deep = await inEach(() => ["diagnose", "--deep", "deep", "--json"]);
    expect(deep.map((answer) => [answer.kind, (answer.summary as { differs: number }).differs])).toEqual(
      CLIS.map(() => ["t3-connector.deep-diagnosis", 0]),
    );
    expect(keys(deep)).toEqual(CLIS.map(() => keys(deep)[0]));
    await inEach(() => ["environments", "remove", "deep"]);
  }, 90_000);
});

describe("an environment behind ssh", () => {
  // The stand-in ssh (first on PATH, as a user's own would be) forwards -L to the simulator's port.
  it("each CLI adds, diagnoses and moves an ssh {host} environment through its own tunnel", async () => {
    const ssh = await createFakeSsh();
    const env = { PATH: `${path.dirname(ssh.path)}:${process.env.PATH ?? ""}` };
    const alpha = sim.environment("alpha");
    const port = Number(new URL(alpha.url).port);
    try {
      const files = ["config.json", "write.json", "ops.json"];
      for (const [index, bin] of (
        ["t3-connector", "t3-connector-write", "t3-connector-ops"] as const
      ).entries()) {
        const projects = bin === "t3-connector" ? ["--projects", "all"] : [];
        const scopes =
          bin === "t3-connector" ? {} : { scopes: ["orchestration:read", "orchestration:operate"] };
        const stdin = alpha.createPairingCode(scopes);
        const added = await run(bin, ["environments", "add", "box", "--ssh", `devbox:${port}`, ...projects], {
          env,
          stdin,
        });
        expect(added.code, added.stderr).toBe(0);
        expect(JSON.parse(added.stdout)).toMatchObject({
          environmentId: alpha.environmentId,
          diagnosis: { ok: true },
        });
        const entry = JSON.parse(await readFile(path.join(work, files[index] as string), "utf8")).environments
          .box;
        expect(entry.ssh).toEqual({ host: "devbox", remotePort: port });
        const diagnosed = await run(bin, ["diagnose", "--environment", "box"], { env });
        expect(diagnosed.code, diagnosed.stderr).toBe(0);
        const moved = await run(bin, ["environments", "move", "box", "--url", alpha.url], { env });
        expect(JSON.parse(moved.stdout)).toMatchObject({
          from: `ssh devbox (remote port ${port})`,
          tokenWorks: true,
        });
        expect((await run(bin, ["environments", "remove", "box"], { env })).code).toBe(0);
      }
      expect((await ssh.spawned()).size).toBeGreaterThanOrEqual(6);
    } finally {
      await ssh.remove();
    }
  });
});
