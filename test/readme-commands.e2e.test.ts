import { type ChildProcess, exec, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { builtBin } from "@t3-connector/test-support/built-bins";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// The README's commands that need no real T3, run as written (through a shell, from the checkout)
// against the simulator. Each command is first found verbatim in README.md, so the two cannot
// drift apart; placeholders (`<url>`, `<pairingCode>`, `/tmp/t3sim`) are then filled in.

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const sh = promisify(exec);
let readme: string;
let work: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  readme = await readFile(path.join(root, "README.md"), "utf8");
  work = await mkdtemp(path.join(os.tmpdir(), "t3-connector-readme-"));
}, 300_000);

afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGTERM");
  await Promise.all(children.map((child) => (child.exitCode === null ? once(child, "exit") : undefined)));
  await rm(work, { recursive: true, force: true });
});

/** Runs `command` as the README writes it, after checking it is there, with `fill` applied. */
async function readmeCommand(
  command: string,
  fill: Record<string, string> = {},
  env: Record<string, string> = {},
) {
  expect(readme, `README.md no longer shows: ${command}`).toContain(command);
  let filled = command;
  for (const [placeholder, value] of Object.entries(fill)) filled = filled.replaceAll(placeholder, value);
  return sh(filled, { cwd: root, env: { ...process.env, ...env }, timeout: 60_000 });
}

/** Starts a long-running README command and resolves with its first stdout line (the ready line). */
async function readmeServer(command: string, fill: Record<string, string>) {
  expect(readme, `README.md no longer shows: ${command}`).toContain(command);
  let filled = command;
  for (const [placeholder, value] of Object.entries(fill)) filled = filled.replaceAll(placeholder, value);
  const [program = "", ...args] = filled.split(" ");
  const child = spawn(program, args, { cwd: root, stdio: ["ignore", "pipe", "inherit"] });
  children.push(child);
  const [line] = (await once(createInterface({ input: child.stdout as NodeJS.ReadableStream }), "line")) as [
    string,
  ];
  return JSON.parse(line) as {
    environments: Array<{ alias: string; url: string; pairingCode: string; environmentId: string }>;
  };
}

describe("the README's commands", () => {
  it("print the versions of the three bins after pnpm install", async () => {
    for (const [command, pkg] of [
      ["pnpm exec t3-connector --version", "read-server"],
      ["pnpm exec t3-connector-write --version", "write-gate"],
      ["pnpm exec t3-sim --version", "t3-sim"],
    ] as const) {
      const { version } = JSON.parse(
        await readFile(path.join(root, "packages", pkg, "package.json"), "utf8"),
      );
      expect((await readmeCommand(command)).stdout).toBe(`${version}\n`);
    }
  });

  it("take a new user from the simulator to an added, available environment and a client config", async () => {
    const simDir = path.join(work, "t3sim");
    const ready = await readmeServer("pnpm exec t3-sim serve --environments 1 --config-out /tmp/t3sim", {
      "/tmp/t3sim": simDir,
    });
    const [env] = ready.environments;
    if (env === undefined) throw new Error("the simulator started no environment");
    const config = { T3_CONNECTOR_CONFIG: path.join(work, "t3mine", "config.json") };
    expect(readme).toContain("export T3_CONNECTOR_CONFIG=/tmp/t3mine/config.json");
    const added = await readmeCommand(
      "printf '<pairingCode>' | pnpm exec t3-connector environments add mine --url <url> --projects all",
      { "<pairingCode>": env.pairingCode, "<url>": env.url },
      config,
    );
    expect(JSON.parse(added.stdout)).toMatchObject({ alias: "mine", ok: true });
    const listed = JSON.parse(
      (await readmeCommand("pnpm exec t3-connector environments", {}, config)).stdout,
    );
    expect(listed.environments).toEqual([expect.objectContaining({ alias: "mine", available: true })]);
    const snippet = await readmeCommand("pnpm exec t3-connector client-config claude-desktop", {}, config);
    expect(JSON.parse(snippet.stdout).mcpServers["t3-connector"]).toMatchObject({
      command: process.execPath,
      args: [builtBin("t3-connector"), "serve"],
      env: config,
    });
  });

  it("start the simulator of the simulator section and add its second machine on the write side", async () => {
    const ready = await readmeServer(
      "pnpm exec t3-sim serve --environments 2 --seed demo --config-out /tmp/t3demo",
      {
        "/tmp/t3demo": path.join(work, "t3demo"),
      },
    );
    const beta = ready.environments[1];
    if (beta === undefined) throw new Error("the simulator started one environment, not two");
    const added = await readmeCommand(
      "printf '<code>' | pnpm exec t3-connector-write environments add laptop --url …",
      { "<code>": beta.pairingCode, "…": beta.url },
      {
        T3_CONNECTOR_WRITE_CONFIG: path.join(work, "write", "write.json"),
        T3_CONNECTOR_CONFIG: path.join(work, "write", "no-read-config.json"),
      },
    );
    expect(JSON.parse(added.stdout)).toMatchObject({
      alias: "laptop",
      ok: true,
      scopes: ["orchestration:operate", "orchestration:read"],
    });
  });
});
