import { type ChildProcess, execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { freePort } from "@t3-connector/test-support/free-port";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// What a user gets from the packages, not from this checkout: every package packed with
// `pnpm -r pack` (workspace dependencies become versions), the tarballs installed together with
// npm into an empty prefix, and the installed bins run from there. Only the npm registry is
// reached, for the third-party dependencies.

const root = fileURLToPath(new URL("../../", import.meta.url));
const run = promisify(execFile);
let work: string;
let prefix: string;
const children: ChildProcess[] = [];

const bin = (name: string) => path.join(prefix, "node_modules", ".bin", name);
const version = async (pkg: string) =>
  (
    JSON.parse(await readFile(path.join(root, "packages", pkg, "package.json"), "utf8")) as {
      version: string;
    }
  ).version;

beforeAll(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), "t3-connector-pack-"));
  const tarballs = path.join(work, "tarballs");
  prefix = path.join(work, "prefix");
  await run("pnpm", ["-r", "pack", "--pack-destination", tarballs], { cwd: root, timeout: 120_000 });
  const files = (await readdir(tarballs)).filter((name) => name.endsWith(".tgz"));
  expect(files.sort()).toEqual([
    `t3-connector-core-${await version("core")}.tgz`,
    `t3-connector-events-${await version("events")}.tgz`,
    `t3-connector-mcp-tools-${await version("mcp-tools")}.tgz`,
    `t3-connector-oauth-${await version("oauth")}.tgz`,
    `t3-connector-ops-${await version("ops")}.tgz`,
    `t3-connector-read-server-${await version("read-server")}.tgz`,
    `t3-connector-t3-sim-${await version("t3-sim")}.tgz`,
    `t3-connector-write-bridge-${await version("write-bridge")}.tgz`,
    `t3-connector-write-engine-${await version("write-engine")}.tgz`,
    `t3-connector-write-gate-${await version("write-gate")}.tgz`,
  ]);
  await run(
    "npm",
    [
      "install",
      "--prefix",
      prefix,
      "--no-audit",
      "--no-fund",
      "--loglevel=error",
      ...files.map((name) => path.join(tarballs, name)),
    ],
    { cwd: work, timeout: 300_000 },
  );
}, 600_000);

afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
  if (work !== undefined) await rm(work, { recursive: true, force: true });
});

/** Starts the installed simulator and resolves with its ready line once the configs are written. */
async function installedSimulator(configDir: string) {
  const child = spawn(bin("t3-sim"), ["serve", "--environments", "1", "--config-out", configDir], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.push(child);
  const [line] = (await once(createInterface({ input: child.stdout as NodeJS.ReadableStream }), "line")) as [
    string,
  ];
  return JSON.parse(line) as { environments: Array<{ alias: string; url: string }> };
}

describe("the packed and installed packages", () => {
  it("print their package.json versions", async () => {
    expect((await run(bin("t3-connector"), ["--version"])).stdout).toBe(`${await version("read-server")}\n`);
    expect((await run(bin("t3-connector-write"), ["--version"])).stdout).toBe(
      `${await version("write-gate")}\n`,
    );
    expect((await run(bin("t3-sim"), ["--version"])).stdout).toBe(`${await version("t3-sim")}\n`);
    expect((await run(bin("t3-connector-ops"), ["--version"])).stdout).toBe(`${await version("ops")}\n`);
  });

  it("complete an MCP initialize with the installed t3-connector serve against the installed simulator", async () => {
    const configDir = path.join(work, "sim-read");
    await installedSimulator(configDir);
    const transport = new StdioClientTransport({
      command: bin("t3-connector"),
      args: ["serve"],
      env: {
        ...(process.env as Record<string, string>),
        T3_CONNECTOR_CONFIG: path.join(configDir, "config.json"),
      },
      stderr: "inherit",
    });
    const client = new Client({ name: "pack-install", version: "0.0.0" });
    await client.connect(transport);
    try {
      expect(client.getServerVersion()).toMatchObject({
        name: "t3-connector",
        version: await version("read-server"),
      });
      expect(client.getInstructions()?.length ?? 0).toBeGreaterThan(0);
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain("t3_threads");
      const answer = await client.callTool({ name: "t3_ambientes", arguments: {} });
      expect(answer.isError).toBeFalsy();
    } finally {
      await client.close();
    }
  }, 60_000);

  it("serve the approval page from the installed gate", async () => {
    const configDir = path.join(work, "sim-write");
    await installedSimulator(configDir);
    const writeJson = path.join(configDir, "write.json");
    const port = await freePort();
    const config = JSON.parse(await readFile(writeJson, "utf8")) as Record<string, unknown>;
    await writeFile(writeJson, JSON.stringify({ ...config, port }), { mode: 0o600 });
    const gate = spawn(bin("t3-connector-write"), ["gate"], {
      env: { ...process.env, T3_CONNECTOR_WRITE_CONFIG: writeJson },
      stdio: ["ignore", "ignore", "pipe"],
    });
    children.push(gate);
    const lines = createInterface({ input: gate.stderr as NodeJS.ReadableStream });
    for await (const line of lines) if (line.includes(`listening on http://localhost:${port}/`)) break;
    const page = await fetch(`http://localhost:${port}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");
    expect(await page.text()).toContain("app.js");
    const script = await fetch(`http://localhost:${port}/app.js`);
    expect(script.status).toBe(200);
    gate.kill("SIGTERM");
    expect((await once(gate, "exit"))[0]).toBe(0);
  }, 60_000);
});
