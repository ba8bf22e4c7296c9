import type { PathContext } from "../config/paths.js";
import { ConnectorError, isConnectorError } from "../errors.js";

/** A source of bytes the CLI reads from (the process stdin, or an array in tests). */
export type CliInput = AsyncIterable<string | Uint8Array> | Iterable<string | Uint8Array>;

/**
 * What a CLI reads and writes, injected so every command runs in a test without a process.
 * Only `stdout` and `stderr` are required; the rest defaults to the real process.
 */
export interface CliIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  /** Where `pair` reads the pairing code. */
  stdin?: CliInput;
  /** Environment variables (the config paths come from here). */
  env?: Readonly<Record<string, string | undefined>>;
  /** The user's home directory, for `~` in the config. */
  homeDir?: string;
  fetch?: typeof fetch;
  /** Whether stdin is a terminal: a person is there (help on no arguments, ADR 0030). */
  stdinIsTTY?: boolean;
}

/** Where a command looks for the config files: the injected environment and home, when given. */
export function configPathContext(io: CliIo): PathContext {
  return { ...(io.env ? { env: io.env } : {}), ...(io.homeDir ? { homeDir: io.homeDir } : {}) };
}

export function processIo(): CliIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    stdinIsTTY: process.stdin.isTTY === true,
  };
}

/** JSON for people and scripts: two-space indented, one trailing newline. */
export function writeJson(io: CliIo, value: unknown): void {
  io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/**
 * `code: message` for a ConnectorError. Anything else is unexpected: the operator gets its name
 * and message (no stack), which is enough to act on a local failure such as a permission error.
 */
export function describeError(error: unknown): string {
  if (isConnectorError(error)) return error.toString();
  return error instanceof Error
    ? `internal: ${error.name}: ${error.message}`
    : "internal: unexpected failure";
}

/** Reads all of `stdin` as UTF-8 (a pairing code is a few bytes; the cap keeps a mistake cheap). */
export async function readAll(stdin: CliInput, maxBytes = 64 * 1024): Promise<string> {
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
