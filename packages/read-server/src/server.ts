import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation";
import { packageInfo } from "./package-info.js";
import type { ReadContext } from "./read-context.js";
import type { ReadToolDefinition } from "./read-tool.js";
import { type RegisterReadToolsOptions, registerReadTools } from "./register-read-tools.js";

/** MCP server name, kept from the contract so configured clients recognise it. */
export const READ_SERVER_NAME = "t3-connector";

/**
 * The SDK server validates JSON Schema only for elicitation answers, and the read server never
 * elicits. Without this option the SDK builds an Ajv instance with every format at construction
 * (about 20 ms of CPU before `initialize` can be answered) that nothing would use.
 */
const noJsonSchemaValidation: jsonSchemaValidator = {
  getValidator() {
    throw new Error("the read server sends no elicitation, so it validates no JSON Schema");
  },
};

/** Builds the read MCP server with `definitions`; the caller picks the transport. */
export function createReadServer(
  definitions: readonly ReadToolDefinition[],
  context: ReadContext,
  options: RegisterReadToolsOptions = {},
): McpServer {
  const server = new McpServer(
    { name: READ_SERVER_NAME, version: packageInfo().version },
    { jsonSchemaValidator: noJsonSchemaValidation },
  );
  registerReadTools(server, definitions, context, options);
  return server;
}
