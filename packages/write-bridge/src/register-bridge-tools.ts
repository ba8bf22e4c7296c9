import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { isConnectorError } from "@t3-connector/core";
import { findLooseObject } from "@t3-connector/core/schema";
import * as z from "zod";
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
 * Answers `tools/list` and `tools/call` on the protocol server directly. `McpServer.registerTool`
 * reports a schema failure as a tool result; our contract is a JSON-RPC -32602 for any unknown or
 * legacy key, raised before anything reaches the gate. Owning both handlers also means no tool can
 * be added later that skips these checks (`registerTool` would throw).
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
  protocol.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const definition = byName.get(request.params.name);
    if (definition === undefined) {
      throw new McpError(ErrorCode.InvalidParams, `Tool ${request.params.name} not found`);
    }
    const rawArguments = request.params.arguments ?? {};
    const parsed = await definition.inputSchema.safeParseAsync(rawArguments);
    if (!parsed.success) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `Invalid arguments for tool ${definition.name}: ${describeIssues(parsed.error)}`,
      );
    }
    return run(definition, context, parsed.data, { signal: extra.signal, rawArguments }, log);
  });
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
    inputSchema: z.toJSONSchema(definition.inputSchema, {
      io: "input",
      target: "draft-7",
    }) as Tool["inputSchema"],
    outputSchema: z.toJSONSchema(definition.outputSchema, {
      io: "output",
      target: "draft-7",
    }) as Tool["outputSchema"],
    annotations: { title: definition.title, ...definition.annotations },
  };
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const where = issue.path.length === 0 ? "" : `${issue.path.map(String).join(".")}: `;
      const renames =
        issue.code === "unrecognized_keys"
          ? issue.keys.flatMap((key) => (LEGACY_KEYS[key] ? [`"${key}" is now "${LEGACY_KEYS[key]}"`] : []))
          : [];
      return `${where}${issue.message}${renames.length === 0 ? "" : ` (${renames.join(", ")})`}`;
    })
    .join("; ");
}
