import { readFileSync } from "node:fs";
import { ConnectorError, isConnectorError } from "@t3-connector/core";
import { loadWriteConfig, type WriteConfig } from "@t3-connector/core/config";

/** What the CLI reads and writes, injected so every command runs in a test without a process. */
export interface CliIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  /** Where `pair` reads the pairing code. */
  stdin?: AsyncIterable<string | Uint8Array> | Iterable<string | Uint8Array>;
  /** Environment variables (`T3_CONNECTOR_WRITE_CONFIG`, `T3_CONNECTOR_CONFIG`). */
  env?: Readonly<Record<string, string | undefined>>;
  homeDir?: string;
  fetch?: typeof fetch;
}

export function processIo(): CliIo {
  return { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env };
}

export function writeJson(io: CliIo, value: unknown): void {
  io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** `code: message` for a ConnectorError; anything else only by its name and message (no stack). */
export function describeError(error: unknown): string {
  if (isConnectorError(error)) return error.toString();
  return error instanceof Error
    ? `internal: ${error.name}: ${error.message}`
    : "internal: unexpected failure";
}

export function errorJson(error: unknown): { code: string; message: string } {
  if (isConnectorError(error)) return { code: error.code, message: error.message };
  return { code: "internal", message: "unexpected failure" };
}

export function loadCliWriteConfig(io: CliIo): Promise<WriteConfig> {
  return loadWriteConfig({
    ...(io.env ? { env: io.env } : {}),
    ...(io.homeDir ? { homeDir: io.homeDir } : {}),
  });
}

/** Reads all of `stdin` as UTF-8 (a pairing code is a few bytes; the cap keeps a mistake cheap). */
export async function readAll(
  stdin: AsyncIterable<string | Uint8Array> | Iterable<string | Uint8Array>,
  maxBytes = 64 * 1024,
): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stdin) {
    const buffer = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : Buffer.from(chunk);
    size += buffer.length;
    if (size > maxBytes)
      throw new ConnectorError("invalid_input", `the input is longer than ${maxBytes} bytes`);
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

let version: string | undefined;

/** From package.json: `src/` and `dist/` both sit one level below the package root. */
export function packageVersion(): string {
  if (version === undefined) {
    const raw = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
      version?: unknown;
    };
    if (typeof raw.version !== "string") throw new Error("write-gate package.json has no version");
    version = raw.version;
  }
  return version;
}
