import { createInterface } from "node:readline/promises";
import type { CliIo } from "./cli-io.js";

/**
 * One question at a time on a terminal: the prompt goes to stderr (stdout carries the command's
 * JSON), the answer is one line of stdin. Undefined when stdin is not a terminal: a piped stdin is
 * read whole by the command, and choices then come from flags.
 */
export interface TerminalPrompt {
  ask(question: string): Promise<string>;
  close(): void;
}

export function terminalPrompt(io: Pick<CliIo, "stdin" | "stderr">): TerminalPrompt | undefined {
  const stdin = io.stdin as (NodeJS.ReadableStream & { isTTY?: boolean }) | undefined;
  if (stdin === undefined || stdin.isTTY !== true) return undefined;
  const lines = createInterface({
    input: stdin,
    output: io.stderr as NodeJS.WritableStream,
    terminal: true,
  });
  return {
    ask: async (question) => (await lines.question(question)).trim(),
    close: () => lines.close(),
  };
}
