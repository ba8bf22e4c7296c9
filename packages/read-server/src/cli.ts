import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { packageInfo } from "./package-info.js";
import { createProcessReadContext } from "./read-context.js";
import type { ReadToolDefinition } from "./read-tool.js";
import { createReadServer, READ_SERVER_NAME } from "./server.js";
import { readToolDefinitions } from "./tools/index.js";

/** Where the CLI writes; injected so the command logic can be exercised without a process. */
export interface CliIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

export const USAGE = `Usage: ${READ_SERVER_NAME} [command]

Commands:
  serve         Run the read-only MCP server over stdio (the default)

Options:
  --version     Print the version and exit
  -h, --help    Show this help and exit
`;

/** Exit code of a usage error, as for most Unix tools. */
export const USAGE_EXIT_CODE = 2;

/**
 * Runs the `t3-connector` command line and resolves with the exit code. `serve` resolves only when
 * the MCP session ends (stdin closed or a termination signal).
 */
export async function runCli(
  argv: readonly string[],
  io: CliIo = { stdout: process.stdout, stderr: process.stderr },
  definitions: readonly ReadToolDefinition[] = readToolDefinitions,
): Promise<number> {
  const [command = "serve", ...rest] = argv;
  if (command === "--version" && rest.length === 0) {
    io.stdout.write(`${packageInfo().version}\n`);
    return 0;
  }
  if ((command === "--help" || command === "-h" || command === "help") && rest.length === 0) {
    io.stdout.write(USAGE);
    return 0;
  }
  if (command === "serve" && rest.length === 0) {
    return serve(io, definitions);
  }
  const unknown = command === "serve" || command.startsWith("-") ? [command, ...rest].join(" ") : command;
  io.stderr.write(`${READ_SERVER_NAME}: unknown command or argument: ${unknown}\n\n${USAGE}`);
  return USAGE_EXIT_CODE;
}

async function serve(io: CliIo, definitions: readonly ReadToolDefinition[]): Promise<number> {
  // stdout carries MCP frames only; a stray console.log from any module would corrupt the stream.
  console.log = console.error;
  console.info = console.error;
  console.debug = console.error;

  const context = createProcessReadContext({ log: (line) => io.stderr.write(`${line}\n`) });
  const server = createReadServer(definitions, context);
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    server.server.onclose = () => resolve();
  });
  const stop = () => void server.close();
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  // The client going away closes our stdin; end the session instead of idling forever.
  process.stdin.once("end", stop);

  await server.connect(transport);
  io.stderr.write(
    `${READ_SERVER_NAME} ${packageInfo().version}: read-only MCP server on stdio, ${definitions.length} tools\n`,
  );
  await closed;
  process.off("SIGINT", stop);
  process.off("SIGTERM", stop);
  return 0;
}
