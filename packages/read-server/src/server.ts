import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { packageInfo } from "./package-info.js";
import type { ReadContext } from "./read-context.js";
import type { ReadToolDefinition } from "./read-tool.js";
import { registerReadTools } from "./register-read-tools.js";

/** MCP server name, kept from the contract so configured clients recognise it. */
export const READ_SERVER_NAME = "t3-connector";

/** Builds the read MCP server with `definitions`; the caller picks the transport. */
export function createReadServer(
  definitions: readonly ReadToolDefinition[],
  context: ReadContext,
): McpServer {
  const server = new McpServer({ name: READ_SERVER_NAME, version: packageInfo().version });
  registerReadTools(server, definitions, context);
  return server;
}
