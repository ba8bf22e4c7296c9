import { execFile, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { type Simulator, startSimulator } from "@t3-connector/t3-sim";
import { builtBin } from "@t3-connector/test-support/built-bins";
import { type SimConfig, writeSimConfig } from "@t3-connector/test-support/sim-config";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readToolDefinitions } from "../../src/tools/index.js";

const run = promisify(execFile);
const bin = builtBin("t3-connector");
const packageVersion = (
  JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }
).version;

// `serve` loads the read config and verifies every environment before it answers, so the bin
// gets a config pointing at a simulated environment.
let sim: Simulator;
let config: SimConfig;
let childEnv: NodeJS.ProcessEnv;
beforeAll(async () => {
  sim = await startSimulator({ environments: [{ alias: "alpha", seed: "empty" }] });
  config = await writeSimConfig(sim);
  childEnv = { ...process.env, T3_CONNECTOR_CONFIG: config.configPath };
});
afterAll(async () => {
  await sim?.close();
  await config?.remove();
});

describe("the t3-connector bin", () => {
  it("prints the version and exits 0", async () => {
    const { stdout, stderr } = await run(process.execPath, [bin, "--version"]);
    expect(stdout).toBe(`${packageVersion}\n`);
    expect(stderr).toBe("");
  });

  it("exits 64 naming the problem and the way to the help for an unknown command", async () => {
    const failure = await run(process.execPath, [bin, "frobnicate"]).then(
      () => undefined,
      (error: { code?: number; stdout?: string; stderr?: string }) => error,
    );
    expect(failure?.code).toBe(64);
    expect(failure?.stdout).toBe("");
    expect(failure?.stderr).toBe(
      "t3-connector: invalid_input: unknown command or argument: frobnicate\nRun 't3-connector --help' for its usage.\n",
    );
  });

  it("serves MCP over stdio with serve: initialize and tools/list, banner on stderr", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [bin, "serve"],
      env: childEnv as Record<string, string>,
      stderr: "pipe",
    });
    let stderrText = "";
    const banner = new Promise<void>((resolve) => {
      transport.stderr?.on("data", (chunk: Buffer) => {
        stderrText += chunk.toString("utf8");
        if (stderrText.includes("read-only MCP server on stdio")) resolve();
      });
    });
    const client = new Client({ name: "bin-test", version: "0.0.0" });
    try {
      await client.connect(transport);
      expect(client.getServerVersion()).toEqual({ name: "t3-connector", version: packageVersion });
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(
        readToolDefinitions.map((definition) => definition.name),
      );
      await banner;
      expect(stderrText).toContain(`t3-connector ${packageVersion}`);
    } finally {
      await client.close();
    }
  });

  it.each(["stdin-closed", "SIGTERM"] as const)("ends the session and exits 0 on %s", async (how) => {
    const child = spawn(process.execPath, [bin, "serve"], { stdio: ["pipe", "pipe", "pipe"], env: childEnv });
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    try {
      await new Promise<void>((resolve) => {
        let text = "";
        child.stderr.on("data", (chunk: Buffer) => {
          text += chunk.toString("utf8");
          if (text.includes("read-only MCP server on stdio")) resolve();
        });
      });
      if (how === "SIGTERM") child.kill("SIGTERM");
      else child.stdin.end();
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    }
  });
});
