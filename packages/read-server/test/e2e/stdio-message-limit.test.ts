import { spawn } from "node:child_process";
import { type Simulator, startSimulator } from "@t3-connector/t3-sim";
import { sendOversizedLine } from "@t3-connector/test-support/oversized-stdio-line";
import { type SimConfig, writeSimConfig } from "@t3-connector/test-support/sim-config";
import { bin } from "@t3-connector/test-support/spawned-serve";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// Issue 34, item 4: one stdio line over the limit used to end `serve` with exit 0 and nothing on
// stderr. Now the session ends with exit 1 and one stderr line that names the limit.
let sim: Simulator;
let config: SimConfig;

beforeAll(async () => {
  sim = await startSimulator({ environments: [{ alias: "alpha", seed: "demo" }] });
  config = await writeSimConfig(sim);
}, 200_000);

afterAll(async () => {
  await sim?.close();
  await config?.remove();
});

describe("t3-connector serve over stdio", () => {
  it("exits 1 with one line naming the 10 MiB limit when a 12 MB line arrives", async () => {
    const run = await sendOversizedLine(
      [bin, "serve"],
      { ...process.env, T3_CONNECTOR_CONFIG: config.configPath },
      "read-only MCP server on stdio",
    );
    expect(run.code).toBe(1);
    const reasons = run.stderr.split("\n").filter((line) => line.includes("limit"));
    expect(reasons).toHaveLength(1);
    expect(reasons[0]).toMatch(/longer than the 10 MiB limit \(10485760 bytes\)/);
    expect(run.stdout).toBe("");
  }, 60_000);

  it("answers an empty batch [] and a JSON line that is not JSON-RPC with -32600, logs each once, and keeps serving", async () => {
    const child = spawn(process.execPath, [bin, "serve"], {
      env: { ...process.env, T3_CONNECTOR_CONFIG: config.configPath },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    const answered = new Promise<string[]>((resolve) => {
      let stdout = "";
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
        stdout += chunk;
        const lines = stdout.split("\n").filter((line) => line !== "");
        if (lines.length >= 4) resolve(lines);
      });
    });
    child.stdin.write("[]\n");
    child.stdin.write(`${JSON.stringify({ hello: "not a JSON-RPC message" })}\n`);
    child.stdin.write(
      `${JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: 20250618, capabilities: {}, clientInfo: { name: "raw", version: "0" } } })}\n`,
    );
    child.stdin.write(
      `${JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "raw", version: "0" },
        },
      })}\n`,
    );
    const [emptyBatch, notJsonRpc, badVersion, initialized] = (await answered).map((line) =>
      JSON.parse(line),
    );
    // A protocolVersion that is not a string: -32602 in one line, not the SDK's -32603 dump.
    expect(badVersion).toEqual({
      jsonrpc: "2.0",
      id: 0,
      error: { code: -32602, message: "Invalid params: initialize's protocolVersion must be a string" },
    });
    for (const refused of [emptyBatch, notJsonRpc]) {
      expect(refused).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32600 } });
    }
    expect(initialized).toMatchObject({ id: 1, result: { protocolVersion: "2025-06-18" } });
    const exited = new Promise<number | null>((resolve) => child.once("close", resolve));
    child.stdin.end();
    expect(await exited).toBe(0);
    const logged = stderr.split("\n").filter((line) => line.includes("stdio transport:"));
    expect(logged).toHaveLength(3);
    expect(logged[0]).toMatch(/-32600 Invalid Request/);
  }, 60_000);
});
