import { spawn } from "node:child_process";

export interface OversizedLineRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** 12 MB: past the 10 MiB a stdio MCP server reads as one message. */
export const OVERSIZED_LINE_BYTES = 12 * 1024 * 1024;

/**
 * Spawns `args` with `env`, writes one JSON-RPC line of OVERSIZED_LINE_BYTES to its stdin and
 * leaves stdin open (a client that is still there), then waits for the process to exit by itself.
 * `startedOn` is a stderr text that says the server is listening, so the line is not read before.
 */
export function sendOversizedLine(
  args: string[],
  env: Record<string, string | undefined>,
  startedOn: string,
): Promise<OversizedLineRun> {
  const child = spawn(process.execPath, args, { env, stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  let sent = false;
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
    if (sent || !stderr.includes(startedOn)) return;
    sent = true;
    const padding = "x".repeat(OVERSIZED_LINE_BYTES);
    const line = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t3_threads","arguments":{"pad":"${padding}"}}}\n`;
    // The server may end the session before it read the whole line: a broken pipe is expected.
    child.stdin.on("error", () => undefined);
    child.stdin.write(line);
  });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}
