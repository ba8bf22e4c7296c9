/**
 * Tool errors every MCP client can read (ADR 0021), through the official SDK's `Client.callTool`
 * with its default output-schema validation, against both servers as users run them: the real
 * `t3-connector serve` and `t3-connector-write bridge` spawned over stdio, the bridge in front of a
 * real gate over the simulator. SDK 1.32 checks `structuredContent` against the tool's output
 * schema even on an error result and throws -32602 when it does not match; every error must come
 * back as a result instead, its code and fix in the text.
 */
import { spawn } from "node:child_process";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { READ_TOOL_NAMES } from "@t3-connector/read-server";
import { type Simulator, startSimulator } from "@t3-connector/t3-sim";
import { builtBin } from "@t3-connector/test-support/built-bins";
import { type RealGate, startRealGate } from "@t3-connector/test-support/real-gate";
import { type SimConfig, writeSimConfig } from "@t3-connector/test-support/sim-config";
import { toolInputError } from "@t3-connector/test-support/tool-input-error";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const READ_BIN = builtBin("t3-connector");
const WRITE_BIN = builtBin("t3-connector-write");
const ERROR_META_KEY = "t3-connector/error";

let sim: Simulator | undefined;
let readConfig: SimConfig | undefined;
let gate: RealGate | undefined;
let reader: Client | undefined;
let bridge: Client | undefined;

beforeAll(async () => {
  sim = await startSimulator({ environments: [{ alias: "alpha", seed: "demo" }] });
  readConfig = await writeSimConfig(sim);
  gate = await startRealGate();
  reader = await connect(READ_BIN, ["serve"], { T3_CONNECTOR_CONFIG: readConfig.configPath });
  bridge = await connect(WRITE_BIN, ["bridge"], { T3_CONNECTOR_WRITE_CONFIG: gate.config.path });
}, 180_000);

afterAll(async () => {
  await reader?.close();
  await bridge?.close();
  await gate?.close();
  await sim?.close();
  await readConfig?.remove();
});

async function connect(bin: string, args: string[], env: Record<string, string>): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin, ...args],
    env: { ...(process.env as Record<string, string>), ...env },
    stderr: "pipe",
  });
  const client = new Client({ name: "tool-errors", version: "0.0.0" });
  await client.connect(transport);
  return client;
}

/** `{"a":{"a":…{}}}`, `depth` levels: JSON.stringify itself overflows long before 10,000 levels. */
function nested(depth: number): unknown {
  let value: unknown = {};
  for (let level = 1; level < depth; level++) value = { a: value };
  return value;
}

function must<T>(value: T | undefined): T {
  if (value === undefined) throw new Error("setup did not finish");
  return value;
}

describe("a bad argument to any tool, through Client.callTool with output validation", () => {
  it("every read tool answers an unknown parameter and too deep arguments as a readable invalid_input", async () => {
    const client = must(reader);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([...READ_TOOL_NAMES].sort());
    for (const tool of tools) {
      // Every read tool declares an output schema, so callTool would validate structuredContent.
      expect(tool.outputSchema, tool.name).toBeDefined();
      const unknown = await toolInputError(client, tool.name, { notAParameter: true });
      expect(unknown.code).toBe("invalid_input");
      expect(unknown.text).toContain('"notAParameter" is not a parameter');
      const deep = await toolInputError(client, tool.name, { notAParameter: nested(100) });
      expect(deep.text).toMatch(
        new RegExp(`^invalid_input: ${tool.name}: the arguments are nested deeper than 64 levels\\. `),
      );
    }
  });

  it("every write-bridge tool answers an unknown parameter and too deep arguments as a readable invalid_input", async () => {
    const client = must(bridge);
    const { tools } = await client.listTools();
    expect(tools.length).toBeGreaterThan(40);
    for (const tool of tools) {
      expect(tool.outputSchema, tool.name).toBeDefined();
      const unknown = await toolInputError(client, tool.name, { notAParameter: true });
      expect(unknown.code).toBe("invalid_input");
      expect(unknown.text).toContain('"notAParameter" is not a parameter');
      const deep = await toolInputError(client, tool.name, { input: nested(100) });
      expect(deep.message).toBe(`${tool.name}: the arguments are nested deeper than 64 levels`);
    }
    // Refused in the bridge: nothing reached the simulator.
    expect(must(gate).world.commandCount()).toBe(0);
  });

  it("a handler's own error reaches the client as a result with its code in the text and in _meta", async () => {
    const read = await must(reader).callTool({
      name: "t3_thread",
      arguments: { environment: "alpha", threadId: "no-such-thread" },
    });
    const write = await must(bridge).callTool({
      name: "t3_escrever_thread_pin",
      arguments: {
        leaseId: "lease-never-granted",
        environment: "alpha",
        operationId: "op-tool-errors",
        input: { threadId: "thread-1" },
      },
    });
    for (const result of [read, write]) {
      expect(result.isError).toBe(true);
      expect(result.structuredContent).toBeUndefined();
      const fields = (result._meta as Record<string, { code: string; message: string }>)[ERROR_META_KEY];
      const text = (result.content as Array<{ text: string }>)[0]?.text ?? "";
      expect(fields?.code).toMatch(/^[a-z][a-z0-9_]*$/);
      expect(text.startsWith(`${fields?.code}: ${fields?.message}`)).toBe(true);
    }
    expect(must(gate).world.commandCount()).toBe(0);
  });
});

describe("JSON nested 10,000 levels deep", () => {
  it("is an invalid_input tool error from the spawned read server, which keeps answering", async () => {
    const answers = await rawStdioCalls(
      READ_BIN,
      ["serve"],
      { T3_CONNECTOR_CONFIG: must(readConfig).configPath },
      [
        `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t3_threads","arguments":{"x":${"[".repeat(10_000)}${"]".repeat(10_000)}}}}`,
        `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"t3_ambientes","arguments":{}}}`,
      ],
    );
    const deep = answers.get(2) as { result?: { isError?: boolean; content?: Array<{ text: string }> } };
    expect(deep.result?.isError).toBe(true);
    expect(deep.result?.content?.[0]?.text).toMatch(
      /^invalid_input: t3_threads: the arguments are nested deeper than 64 levels\. /,
    );
    const after = answers.get(3) as { result?: { isError?: boolean } };
    expect(after.result?.isError).toBeFalsy();
  });

  it("is invalid_input at the gate's relay, before any schema, and nothing is sent", async () => {
    const real = must(gate);
    const leaseId = await real.grantLease();
    const input = `${'{"a":'.repeat(10_000)}{}${"}".repeat(10_000)}`;
    const body = `{"op":"dispatch","leaseId":"${leaseId}","environment":"alpha","operationId":"op-deep","action":"thread.pin","input":${input}}`;
    const answer = await real.relay(body);
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({
      error: "invalid_input",
      message: "the body is nested deeper than 64 levels",
    });
    // A shallower body goes on to the action's own schema, which refuses it for its shape instead.
    const shallow = await real.relay({
      op: "dispatch",
      leaseId,
      environment: "alpha",
      operationId: "op-shallow",
      action: "thread.pin",
      input: nested(10),
    });
    expect(shallow.status).not.toBe(200);
    expect(shallow.text).not.toContain("nested deeper");
    expect(real.world.commandCount()).toBe(0);
  });
});

/**
 * Spawns `bin`, initialises MCP by hand and writes each of `lines` as sent (the SDK client cannot
 * serialise a 10,000-deep value); resolves with the answers by id once every call is answered.
 */
async function rawStdioCalls(
  bin: string,
  args: string[],
  env: Record<string, string>,
  lines: string[],
): Promise<Map<number, unknown>> {
  const child = spawn(process.execPath, [bin, ...args], {
    env: { ...process.env, ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  child.stderr.resume();
  const answers = new Map<number, unknown>();
  const wanted = lines.length + 1;
  try {
    return await new Promise((resolve, reject) => {
      let buffered = "";
      child.once("error", reject);
      child.once("exit", (code) =>
        reject(new Error(`the server exited (${code}) with ${answers.size} answers`)),
      );
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
        buffered += chunk;
        for (let end = buffered.indexOf("\n"); end >= 0; end = buffered.indexOf("\n")) {
          const message = JSON.parse(buffered.slice(0, end)) as { id?: number };
          buffered = buffered.slice(end + 1);
          if (typeof message.id !== "number") continue;
          answers.set(message.id, message);
          if (message.id === 1) {
            child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
            for (const line of lines) child.stdin.write(`${line}\n`);
          }
          if (answers.size === wanted) resolve(answers);
        }
      });
      child.stdin.write(
        `${JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: {
            protocolVersion: "2025-11-25",
            capabilities: {},
            clientInfo: { name: "raw", version: "0" },
          },
        })}\n`,
      );
    });
  } finally {
    child.removeAllListeners("exit");
    child.kill();
  }
}
