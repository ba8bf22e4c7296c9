import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { request } from "node:http";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { writeTokenFile } from "@t3-connector/core/config";
import { builtBin } from "@t3-connector/test-support/built-bins";
import type { HttpReadyLine } from "../../../src/http/serve-http-announce.js";

export interface SpawnedHttpServe {
  readonly child: ChildProcess;
  readonly ready: HttpReadyLine;
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  stderr(): string;
  /** Resolves once stderr contains `text`. */
  stderrContains(text: string): Promise<void>;
  /** Resolves with the exit code once the process has exited. */
  readonly exited: Promise<number | null>;
  /** SIGTERM, then waits for the exit. */
  stop(): Promise<number | null>;
}

/**
 * Spawns the real built `t3-connector serve --http …` with `configPath` and waits for its ready
 * line on stdout. When the process exits first (start-up refused), rejects with what it printed.
 */
export function spawnHttpServe(configPath: string, args: readonly string[]): Promise<SpawnedHttpServe> {
  const child = spawn(process.execPath, [builtBin("t3-connector"), "serve", "--http", ...args], {
    env: { ...process.env, T3_CONNECTOR_CONFIG: configPath },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  const waiters: Array<{ text: string; resolve: () => void }> = [];
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
    for (const waiter of waiters.filter((w) => stderr.includes(w.text))) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const stderrContains = (text: string) =>
    stderr.includes(text)
      ? Promise.resolve()
      : new Promise<void>((resolve) => waiters.push({ text, resolve }));
  return new Promise((resolve, reject) => {
    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
      const line = stdout.split("\n")[0];
      if (!stdout.includes("\n") || line === undefined) return;
      const ready = JSON.parse(line) as HttpReadyLine;
      resolve({
        child,
        ready,
        origin: new URL(ready.url).origin,
        stderr: () => stderr,
        stderrContains,
        exited,
        stop: () => {
          child.kill("SIGTERM");
          return exited;
        },
      });
    });
    void exited.then((code) =>
      reject(new Error(`serve --http exited (${code}) before its ready line:\n${stderr}`)),
    );
  });
}

/** Runs `serve --http …` expecting it to refuse to start; resolves with its exit code and output. */
export async function httpServeUntilExit(
  configPath: string,
  args: readonly string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [builtBin("t3-connector"), "serve", "--http", ...args], {
    env: { ...process.env, T3_CONNECTOR_CONFIG: configPath },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve) => child.once("exit", (c) => resolve(c)));
  return { code, stdout, stderr };
}

/** A fresh bearer token in `<dir>/http/bearer.token` (mode 600, directory 700). */
export async function writeBearerTokenFile(dir: string): Promise<{ path: string; token: string }> {
  const token = randomBytes(32).toString("hex");
  const file = path.join(dir, "http", "bearer.token");
  await writeTokenFile(file, token);
  return { path: file, token };
}

/** An MCP SDK client over Streamable HTTP, sending `token` as a bearer when given. */
export async function connectHttpClient(url: string, token?: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    ...(token === undefined ? {} : { requestInit: { headers: { Authorization: `Bearer ${token}` } } }),
  });
  const client = new Client({ name: "t3-connector-http-e2e", version: "0.0.0" });
  await client.connect(transport);
  return client;
}

export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * One HTTP request with exactly the headers given (fetch would not let a test set `Host`).
 * `body` may be a Buffer to send a size without building a string.
 */
export function rawRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: options.method ?? "GET", headers: options.headers ?? {} }, (res) => {
      let body = "";
      res.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
      res.once("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.once("error", reject);
    req.end(options.body);
  });
}

/** The headers of an MCP `POST` a Streamable HTTP client sends. */
export function mcpHeaders(extra: Record<string, string> = {}): Record<string, string> {
  return { "content-type": "application/json", accept: "application/json, text/event-stream", ...extra };
}

/** A JSON-RPC `tools/call` body. */
export function toolCallBody(id: number, name: string, args: Record<string, unknown>): string {
  return JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } });
}
