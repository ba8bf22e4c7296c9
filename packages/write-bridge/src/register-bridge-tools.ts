import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { Protocol } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { isConnectorError } from "@t3-connector/core";
import {
  checkToolInput,
  findLooseObject,
  lenientCallToolRequestSchema,
  toolInputErrorResult,
  toolJsonSchema,
} from "@t3-connector/core/schema";
import type * as z from "zod";
import type { BridgeContext, BridgeToolDefinition } from "./bridge-tool.js";
import { INTERNAL_ERROR_TEXT, toolError, toolSuccess } from "./tool-result.js";

/** Keys of the old Portuguese contract: refused like any unknown key, the new name is only hinted. */
const LEGACY_KEYS: Readonly<Record<string, string>> = {
  ambiente: "environment",
  lease: "leaseId",
  operacao: "operationId",
  entrada: "input",
};

/**
 * Answers `tools/list` and `tools/call` on the protocol server directly. A bad argument (unknown
 * or legacy key, wrong type, out of range, `arguments: null`) is answered as a tool error the model
 * can read (`isError: true`, the code and the fix, `structuredContent.error`; ADR 0004) and never
 * reaches the gate. Owning both handlers also means no tool can be added later that skips these
 * checks (`registerTool` would throw).
 */
export function registerBridgeTools(
  server: McpServer,
  definitions: readonly BridgeToolDefinition[],
  context: BridgeContext,
  log: (line: string) => void,
): void {
  const byName = new Map<string, BridgeToolDefinition>();
  for (const definition of definitions) {
    const loose = findLooseObject(definition.inputSchema);
    if (loose !== undefined) throw new Error(`Bridge tool ${definition.name} has a loose object at ${loose}`);
    if (byName.has(definition.name)) throw new Error(`Bridge tool ${definition.name} is defined twice`);
    byName.set(definition.name, definition);
  }
  let listing: Tool[] | undefined;
  const protocol = server.server;
  protocol.assertCanSetRequestHandler(ListToolsRequestSchema.shape.method.value);
  protocol.assertCanSetRequestHandler(CallToolRequestSchema.shape.method.value);
  protocol.registerCapabilities({ tools: { listChanged: false } });
  protocol.setRequestHandler(ListToolsRequestSchema, () => {
    // Built at the first listing: converting ~50 schemas is off the path to `initialize`.
    listing ??= [...byName.values()].map(describeTool);
    return { tools: listing };
  });
  // The Protocol-level registration on purpose: `Server.setRequestHandler` re-validates the
  // request with the SDK's schema, which refuses `arguments: null` as a protocol error.
  Protocol.prototype.setRequestHandler.call(
    protocol,
    lenientCallToolRequestSchema,
    async (request, extra): Promise<CallToolResult> => {
      const definition = byName.get(request.params.name);
      if (definition === undefined) {
        // No tool, so no result to carry the error: this one stays a protocol error.
        throw new McpError(ErrorCode.InvalidParams, `Tool ${request.params.name} not found`);
      }
      const checked = await checkToolInput(
        definition.name,
        definition.inputSchema,
        request.params.arguments,
        LEGACY_KEYS,
      );
      if (!checked.ok) return toolInputErrorResult(checked.error);
      // Validated: a plain object (or absent, which the schema read as {}).
      const rawArguments = (request.params.arguments ?? {}) as Record<string, unknown>;
      return run(definition, context, checked.data, { signal: extra.signal, rawArguments }, log);
    },
  );
}

async function run(
  definition: BridgeToolDefinition,
  context: BridgeContext,
  input: Record<string, unknown>,
  extra: { signal: AbortSignal; rawArguments: Record<string, unknown> },
  log: (line: string) => void,
): Promise<CallToolResult> {
  let output: Record<string, unknown>;
  try {
    output = await definition.handler(context, input, extra);
  } catch (error) {
    if (!isConnectorError(error)) log(`bridge tool ${definition.name} failed unexpectedly: ${String(error)}`);
    return toolError(error);
  }
  const checked = definition.outputSchema.safeParse(output);
  if (!checked.success) {
    log(`bridge tool ${definition.name} produced an invalid result: ${describeIssues(checked.error)}`);
    return { isError: true, content: [{ type: "text", text: INTERNAL_ERROR_TEXT }] };
  }
  return toolSuccess(checked.data as Record<string, unknown>);
}

function describeTool(definition: BridgeToolDefinition): Tool {
  return {
    name: definition.name,
    title: definition.title,
    description: definition.description,
    inputSchema: toolJsonSchema(definition.inputSchema, "input") as Tool["inputSchema"],
    outputSchema: toolJsonSchema(definition.outputSchema, "output") as Tool["outputSchema"],
    annotations: { title: definition.title, ...definition.annotations },
  };
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .map(
      (issue) => `${issue.path.length === 0 ? "" : `${issue.path.map(String).join(".")}: `}${issue.message}`,
    )
    .join("; ");
}
