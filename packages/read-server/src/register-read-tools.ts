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
import * as z from "zod";
import { LEGACY_INPUT_KEYS } from "./legacy-input-keys.js";
import type { ReadContext } from "./read-context.js";
import { READ_ONLY_ANNOTATIONS, type ReadToolDefinition, type ReadToolExtra } from "./read-tool.js";
import { INTERNAL_ERROR_TEXT, toolError, toolSuccess } from "./tool-result.js";

/**
 * Registers the read tools on `server`.
 *
 * Why not `McpServer.registerTool`: in SDK 1.32 it reports a schema failure as the text "MCP
 * error -32602: …", which names neither our error code nor the fix, and it turns `arguments: null`
 * into a protocol error. Our contract (ADR 0004) is a tool result with `isError: true`, a text
 * naming the code and the fix, and `structuredContent.error {code, message, hint}`, so this module
 * answers `tools/list` and `tools/call` itself on the underlying protocol server. Owning both
 * handlers has a useful side effect: a later `registerTool` on the same server throws (the
 * handlers already exist), so no tool can bypass the read-only checks below.
 *
 * Call it once per server, before `connect`; a second call throws.
 */
export function registerReadTools(
  server: McpServer,
  definitions: readonly ReadToolDefinition[],
  context: ReadContext,
  options: RegisterReadToolsOptions = {},
): void {
  const byName = new Map<string, ReadToolDefinition>();
  for (const definition of definitions) {
    assertRegistrable(definition);
    if (byName.has(definition.name)) throw new Error(`Read tool ${definition.name} is defined twice`);
    byName.set(definition.name, definition);
  }
  // Converting eleven tools' schemas to JSON Schema costs tens of milliseconds of CPU; doing it at
  // the first `tools/list` keeps it off the path to the `initialize` answer. The result is kept:
  // the definitions never change while the server runs.
  let listing: Tool[] | undefined;
  const beforeCall = options.beforeCall;

  const protocol = server.server;
  // Throws when tools were already registered (by an earlier call or by `registerTool`), so a
  // server never mixes read tools with tools that skipped these checks.
  protocol.assertCanSetRequestHandler(ListToolsRequestSchema.shape.method.value);
  protocol.assertCanSetRequestHandler(CallToolRequestSchema.shape.method.value);
  protocol.registerCapabilities({ tools: { listChanged: false } });
  protocol.setRequestHandler(ListToolsRequestSchema, () => {
    listing ??= [...byName.values()].map(describeTool);
    return { tools: listing };
  });
  // The Protocol-level registration on purpose: `Server.setRequestHandler` re-validates the
  // request with the SDK's schema, which refuses `arguments: null` as a protocol error before any
  // tool is known. Ours accepts any `arguments` and `checkToolInput` answers it as a tool error.
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
        LEGACY_INPUT_KEYS,
      );
      if (!checked.ok) return toolInputErrorResult(checked.error);
      return runTool(definition, context, checked.data, { signal: extra.signal }, beforeCall);
    },
  );
}

export interface RegisterReadToolsOptions {
  /**
   * Awaited before every handler runs, after the input was validated (the CLI waits here for the
   * start-up check of the environments). A rejection becomes the call's tool error, with the
   * code of a `ConnectorError`, and the handler does not run.
   */
  beforeCall?: () => Promise<void>;
}

async function runTool(
  definition: ReadToolDefinition,
  context: ReadContext,
  input: Record<string, unknown>,
  extra: ReadToolExtra,
  beforeCall: (() => Promise<void>) | undefined,
): Promise<CallToolResult> {
  let output: unknown;
  try {
    if (beforeCall !== undefined) await beforeCall();
    output = await definition.handler(context, input, extra);
  } catch (error) {
    if (!isConnectorError(error) && !extra.signal.aborted) {
      context.log(`read tool ${definition.name} failed unexpectedly: ${describeUnexpected(error)}`);
    }
    return toolError(error, extra.signal);
  }
  const checked = await definition.outputSchema.safeParseAsync(output);
  if (!checked.success) {
    // A handler bug: the client gets the generic text, the operator gets the schema issues.
    context.log(`read tool ${definition.name} returned an invalid result: ${describeIssues(checked.error)}`);
    return { isError: true, content: [{ type: "text", text: INTERNAL_ERROR_TEXT }] };
  }
  return toolSuccess(checked.data);
}

function assertRegistrable(definition: ReadToolDefinition): void {
  const { name, annotations } = definition;
  for (const [hint, expected] of Object.entries(READ_ONLY_ANNOTATIONS)) {
    const actual = (annotations as unknown as Record<string, unknown> | undefined)?.[hint];
    if (actual !== expected) {
      throw new Error(`Read tool ${name} must declare ${hint}: ${expected} (got ${String(actual)})`);
    }
  }
  const loose =
    definition.inputSchema instanceof z.ZodObject ? findLooseObject(definition.inputSchema) : "input";
  if (loose !== undefined) {
    throw new Error(
      `Read tool ${name} needs strict objects (z.strictObject) so unknown keys are refused: ${loose}`,
    );
  }
  if (!(definition.outputSchema instanceof z.ZodObject)) {
    throw new Error(`Read tool ${name} needs an object output schema`);
  }
  if (definition.title.trim() === "" || definition.description.trim() === "") {
    throw new Error(`Read tool ${name} needs a title and a description`);
  }
}

function describeTool(definition: ReadToolDefinition): Tool {
  return {
    name: definition.name,
    title: definition.title,
    description: definition.description,
    inputSchema: toolJsonSchema(definition.inputSchema, "input") as Tool["inputSchema"],
    outputSchema: toolJsonSchema(definition.outputSchema, "output") as Tool["outputSchema"],
    annotations: { ...definition.annotations },
  };
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .map(
      (issue) => `${issue.path.length === 0 ? "" : `${issue.path.map(String).join(".")}: `}${issue.message}`,
    )
    .join("; ");
}

function describeUnexpected(error: unknown): string {
  // Name and message only: a stack trace is not useful to the operator and may be long.
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
