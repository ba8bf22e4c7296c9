import type { jsonSchemaValidator } from "@modelcontextprotocol/server";
import { ToolServer } from "@t3-connector/mcp-tools";
import { registerBoardResource } from "./board/board-resource.js";
import { packageInfo } from "./package-info.js";
import type { ReadContext } from "./read-context.js";
import type { ReadTools } from "./read-tool-catalog.js";
import { type RegisterReadToolsOptions, registerReadTools } from "./register-read-tools.js";
import { READ_SERVER_NAME } from "./server-name.js";

/**
 * Sent in the `initialize` answer (2025) and the `server/discover` answer (2026-07-28): how to use the tools well, in the fewest words a model needs.
 * The tool descriptions carry the details; this says what holds across all of them.
 */
export const READ_SERVER_INSTRUCTIONS =
  "Read-only view of T3 Code coding-agent threads on several machines (environments). " +
  "Start with t3_control_plane (what needs doing across machines) or t3_ambientes (which environments exist). " +
  "There is no default environment: leave `environment` out to cover all, and follow up on an item with its own environment.alias. " +
  "Ids mean nothing outside their environment. " +
  "`complete: false` means some environment did not answer (see environmentFailures): an empty or short list then proves nothing; tell the user which machine is missing. " +
  "Page with cursor: nextCursor and the same other inputs. " +
  "t3_aguardar_thread waits at most 5000 ms; on timedOut answer the user and wait again on a later turn. " +
  "This server never writes: nextAction names the write tool (t3-connector-write bridge) that answers a pending question or approval. " +
  "A bad argument comes back as an invalid_input tool error whose text says how to fix the call.";

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

/**
 * Builds the read MCP server with `definitions`; the caller picks the transport. One instance
 * serves one stdio connection or one HTTP request, of either era (ADR 0046).
 */
export function createReadServer(
  definitions: ReadTools,
  context: ReadContext,
  options: RegisterReadToolsOptions & { instructions?: string } = {},
): ToolServer {
  const server = new ToolServer(
    { name: READ_SERVER_NAME, version: packageInfo().version },
    {
      jsonSchemaValidator: noJsonSchemaValidation,
      instructions: options.instructions ?? READ_SERVER_INSTRUCTIONS,
    },
  );
  registerReadTools(server, definitions, context, options);
  registerBoardResource(server);
  return server;
}
