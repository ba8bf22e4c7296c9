import { spawn } from "node:child_process";
import { builtBin } from "@t3-connector/test-support/built-bins";
import { sendOversizedLine } from "@t3-connector/test-support/oversized-stdio-line";
import { type RealGate, startRealGate } from "@t3-connector/test-support/real-gate";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// Issue 34, item 4: one stdio line over the limit used to end the bridge with exit 0 and nothing
// on stderr. Now the session ends with exit 1 and one stderr line that names the limit.
let real: RealGate | undefined;

beforeAll(async () => {
  real = await startRealGate();
}, 180_000);

afterAll(async () => {
  await real?.close();
});

describe("t3-connector-write bridge over stdio", () => {
  it("exits 1 with one line naming the 10 MiB limit when a 12 MB line arrives", async () => {
    if (real === undefined) throw new Error("setup did not finish");
    const run = await sendOversizedLine(
      [builtBin("t3-connector-write"), "bridge"],
      { ...process.env, T3_CONNECTOR_WRITE_CONFIG: real.config.path },
      "write tools on MCP stdio",
    );
    expect(run.code).toBe(1);
    const reasons = run.stderr.split("\n").filter((line) => line.includes("limit"));
    expect(reasons).toHaveLength(1);
    expect(reasons[0]).toMatch(/longer than the 10 MiB limit \(10485760 bytes\)/);
    expect(run.stdout).toBe("");
  }, 60_000);

  it("answers an empty batch [] with -32600 Invalid Request and a null id, then ends with exit 0 when stdin closes", async () => {
    if (real === undefined) throw new Error("setup did not finish");
    const child = spawn(process.execPath, [builtBin("t3-connector-write"), "bridge"], {
      env: { ...process.env, T3_CONNECTOR_WRITE_CONFIG: real.config.path },
      stdio: ["pipe", "pipe", "ignore"],
    });
    const firstLine = new Promise<string>((resolve) => {
      let stdout = "";
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
        stdout += chunk;
        if (stdout.includes("\n")) resolve(stdout.split("\n")[0] ?? "");
      });
    });
    child.stdin.write("[]\n");
    expect(JSON.parse(await firstLine)).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32600 } });
    const exited = new Promise<number | null>((resolve) => child.once("close", resolve));
    child.stdin.end();
    expect(await exited).toBe(0);
  }, 60_000);
});
