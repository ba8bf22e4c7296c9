import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { builtBin } from "./built-bins.js";

export const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
export const bin = builtBin("t3-connector");

export interface SpawnedServe {
  client: Client;
  /** Everything the server wrote on stderr so far. */
  stderr(): string;
  /** Resolves once stderr contains `text` (stderr and stdout are separate pipes, with no common order). */
  stderrContains(text: string): Promise<void>;
  close(): Promise<void>;
}

/** Spawns the real `t3-connector serve` with `configPath` and connects an MCP SDK client over stdio. */
export async function spawnServe(configPath: string): Promise<SpawnedServe> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin, "serve"],
    env: { ...(process.env as Record<string, string>), T3_CONNECTOR_CONFIG: configPath },
    stderr: "pipe",
  });
  let stderrText = "";
  const waiters: Array<{ text: string; resolve: () => void }> = [];
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderrText += chunk.toString("utf8");
    for (const waiter of waiters.filter((w) => stderrText.includes(w.text))) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  });
  const stderrContains = (text: string) =>
    stderrText.includes(text)
      ? Promise.resolve()
      : new Promise<void>((resolve) => {
          waiters.push({ text, resolve });
        });
  const client = new Client({ name: "t3-connector-e2e", version: "0.0.0" });
  try {
    await client.connect(transport);
  } catch (error) {
    throw new Error(`serve did not start: ${String(error)}\nstderr:\n${stderrText}`);
  }
  return { client, stderr: () => stderrText, stderrContains, close: () => client.close() };
}

export interface BinRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `t3-connector serve` expecting it to exit by itself (start-up refused). */
export function serveUntilExit(configPath: string): Promise<BinRun> {
  return runBin(["serve"], configPath);
}

/** Runs the bin with `args` and `configPath`, writing `stdin` then closing it; resolves when it exits. */
export function runBin(args: string[], configPath: string, stdin?: string): Promise<BinRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], {
      env: { ...process.env, T3_CONNECTOR_CONFIG: configPath },
      stdio: ["pipe", "pipe", "pipe"],
    });
    // Without input, stdin stays open: a serve that wrongly started would not end by itself.
    if (stdin !== undefined) child.stdin.end(stdin);
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** Calls a tool and returns its structured content; a tool error throws with its text. */
export async function callTool(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<Record<string, unknown>> {
  const result = await client.callTool({ name, arguments: args });
  const text = (result.content as Array<{ type: string; text?: string }>)[0]?.text ?? "";
  if (result.isError) throw new Error(`tool error from ${name}: ${text}`);
  // The text content is the same JSON as the structured content, for clients that read text only.
  const structured = result.structuredContent as Record<string, unknown>;
  if (JSON.stringify(JSON.parse(text)) !== JSON.stringify(structured)) {
    throw new Error(`${name}: text content and structuredContent differ`);
  }
  return structured;
}

/** Calls a tool expecting a tool error; returns its text (`<code>: <message>`). */
export async function callToolError(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<string> {
  const result = await client.callTool({ name, arguments: args });
  const text = (result.content as Array<{ type: string; text?: string }>)[0]?.text ?? "";
  if (!result.isError) throw new Error(`expected a tool error from ${name}, got: ${text.slice(0, 300)}`);
  return text;
}
