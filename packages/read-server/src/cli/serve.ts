import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { loadReadConfig, type ReadConfig } from "@t3-connector/core/config";
import { packageInfo } from "../package-info.js";
import { createProcessReadContext } from "../read-context.js";
import type { ReadToolDefinition } from "../read-tool.js";
import { readToolListProblems } from "../read-tool-list.js";
import { createReadServer, READ_SERVER_NAME } from "../server.js";
import { type CliIo, describeError } from "./io.js";
import { checkEnvironmentsAtStartup } from "./startup-check.js";

/**
 * `t3-connector serve`: checks the tool list and every environment, then serves MCP on stdio
 * until the client closes stdin or a termination signal arrives. Resolves with the exit code.
 */
export async function serve(io: CliIo, definitions: readonly ReadToolDefinition[]): Promise<number> {
  // stdout carries MCP frames only; a stray console.log from any module would corrupt the stream.
  console.log = console.error;
  console.info = console.error;
  console.debug = console.error;
  const fail = (line: string) => {
    io.stderr.write(`${READ_SERVER_NAME}: ${line}\n`);
    return 1;
  };

  const listProblems = readToolListProblems(definitions);
  if (listProblems.length > 0)
    return fail(`refusing to start: the tool list is wrong (${listProblems.join("; ")})`);

  let config: ReadConfig;
  try {
    config = await loadReadConfig({
      ...(io.env ? { env: io.env } : {}),
      ...(io.homeDir ? { homeDir: io.homeDir } : {}),
    });
  } catch (error) {
    return fail(describeError(error));
  }
  const context = createProcessReadContext({ config, log: (line) => io.stderr.write(`${line}\n`) });

  const check = await checkEnvironmentsAtStartup(context.registry);
  for (const warning of check.warnings) io.stderr.write(`${READ_SERVER_NAME}: warning: ${warning}\n`);
  if (check.refusals.length > 0) {
    for (const { error } of check.refusals)
      io.stderr.write(`${READ_SERVER_NAME}: refusing to start: ${error}\n`);
    await context.registry.close();
    return 1;
  }

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
  const aliases = config.environments.map((env) => env.alias).join(", ");
  io.stderr.write(
    `${READ_SERVER_NAME} ${packageInfo().version}: read-only MCP server on stdio, ${definitions.length} tools, ` +
      `environments ${aliases} (default ${config.default}, informational only)\n`,
  );
  await closed;
  process.off("SIGINT", stop);
  process.off("SIGTERM", stop);
  process.stdin.off("end", stop);
  // Ends ssh tunnels and sockets we opened.
  await context.registry.close();
  return 0;
}
