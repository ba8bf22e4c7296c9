import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { writeTokenFile } from "@t3-connector/core/config";
import { builtBin } from "@t3-connector/test-support/built-bins";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const BIN = builtBin("t3-connector-write");

let dir: string;
let configPath: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "t3c-bridge-cli-"));
  const tokenFile = join(dir, "tokens", "alpha.operate.token");
  await writeTokenFile(tokenFile, "never-read-by-the-bridge");
  configPath = join(dir, "write.json");
  // No gate has run on this state dir, so there is no relay capability file: the bridge must say
  // gate_unavailable (and nothing listens on port 9 either).
  const config = {
    port: 9,
    stateDir: join(dir, "state"),
    environments: {
      alpha: { environmentId: "env-alpha", url: "http://127.0.0.1:9", tokenFile },
    },
  };
  await writeFile(configPath, JSON.stringify(config), { mode: 0o600 });
}, 180_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("t3-connector-write bridge", () => {
  it("serves the write tools over stdio and answers gate_unavailable when no gate runs", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, "bridge"],
      env: { ...(process.env as Record<string, string>), T3_CONNECTOR_WRITE_CONFIG: configPath },
      stderr: "pipe",
    });
    const client = new Client({ name: "bridge-cli-test", version: "0.0.0" });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      const names = tools.map((tool) => tool.name);
      expect(names).toContain("t3_pedir_aprovacao");
      expect(names).toContain("t3_reconciliar_escrita");
      expect(names.filter((name) => name.startsWith("t3_escrever_")).length).toBeGreaterThanOrEqual(42);

      const answer = await client.callTool({ name: "t3_pedir_aprovacao", arguments: {} });
      expect(answer.isError).toBe(true);
      const text = (answer.content as Array<{ type: string; text?: string }>)[0]?.text ?? "";
      expect(text.startsWith("gate_unavailable")).toBe(true);
    } finally {
      await client.close();
    }
  });
});
