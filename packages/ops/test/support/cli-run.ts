import { runCli } from "../../src/cli.js";

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  json(): unknown;
}

/** Runs the CLI in-process with captured output; `stdin` is what a pipe would carry. */
export async function runOps(
  argv: string[],
  options: { env?: Record<string, string | undefined>; stdin?: string; tty?: boolean } = {},
): Promise<CliRun> {
  let stdout = "";
  let stderr = "";
  const code = await runCli(argv, {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    stdin: options.stdin === undefined ? [] : [options.stdin],
    env: options.env ?? {},
    stdoutIsTTY: options.tty === true,
    stdinIsTTY: false,
  });
  return { code, stdout, stderr, json: () => JSON.parse(stdout) };
}
