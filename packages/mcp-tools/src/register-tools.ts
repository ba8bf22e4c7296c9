import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { Protocol } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type ServerNotification,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { isConnectorError } from "@t3-connector/core";
import { findLooseObject } from "@t3-connector/core/schema";
import * as z from "zod";
import type { ToolCallExtra, ToolDefinition } from "./tool-definition.js";
import { toolErrorResult, withoutStructuredContent } from "./tool-error-result.js";
import { checkToolInput, lenientCallToolRequestSchema, toolInputErrorResult } from "./tool-input.js";
import { toolJsonSchema } from "./tool-json-schema.js";
import { toolSuccess } from "./tool-success.js";

export interface RegisterToolsOptions<Context, Definition extends ToolDefinition<Context>> {
  /** Names the server in registration errors and log lines: "Read tool x …", "bridge tool x …". */
  kind: string;
  context: Context;
  /** Old parameter names → new ones: still refused, the new name is only hinted (ADR 0004). */
  legacyKeys?: Readonly<Record<string, string>>;
  /** A server's own registration rule (the read server's read-only hints); throws to refuse. */
  check?: (definition: Definition) => void;
  /**
   * Awaited before every handler runs, after the input was validated. A rejection becomes the
   * call's tool error (through `toolError`), and the handler does not run.
   */
  beforeCall?: () => Promise<void>;
  /**
   * A thrown error as the tool error the model reads; the server's own codes and next steps
   * (built with `toolErrorResult`). Any `structuredContent` on it is dropped (ADR 0021).
   */
  toolError: (error: unknown, signal: AbortSignal) => CallToolResult;
  /** The text of a result that failed its own output schema (a handler bug): says nothing of the cause. */
  internalErrorText: string;
  /** The operator's log (stderr): unexpected failures and invalid results, with their detail. */
  log: (line: string) => void;
  /** Repeat the title inside `annotations` in `tools/list` (the bridge always has). */
  titleInAnnotations?: boolean;
}

/**
 * Registers `definitions` on `server` by answering `tools/list` and `tools/call` on the protocol
 * server directly. Shared by the read server and the write bridge (ADR 0016).
 *
 * Why not `McpServer.registerTool`: in SDK 1.32 it reports a schema failure as the text "MCP
 * error -32602: …", which names neither our error code nor the fix, and it turns `arguments: null`
 * into a protocol error. Our contract (ADR 0004, ADR 0021) is a tool result with `isError: true`,
 * a text naming the code and the fix, the same facts in `_meta["t3-connector/error"]`, and no
 * `structuredContent` (a client checks that against the output schema, even on an error). Owning both
 * handlers has a useful side effect: a later `registerTool` on the same server throws (the
 * handlers already exist), so no tool can bypass the checks below.
 *
 * Call it once per server, before `connect`; a second call throws.
 */
export function registerTools<Context, Definition extends ToolDefinition<Context>>(
  server: McpServer,
  definitions: readonly Definition[],
  options: RegisterToolsOptions<Context, Definition>,
): void {
  const label = `${options.kind.charAt(0).toUpperCase()}${options.kind.slice(1)} tool`;
  const byName = new Map<string, Definition>();
  for (const definition of definitions) {
    options.check?.(definition);
    assertRegistrable(label, definition);
    if (byName.has(definition.name)) throw new Error(`${label} ${definition.name} is defined twice`);
    byName.set(definition.name, definition);
  }
  // Converting dozens of schemas to JSON Schema costs tens of milliseconds of CPU; doing it at the
  // first `tools/list` keeps it off the path to the `initialize` answer. The result is kept: the
  // definitions never change while the server runs.
  let listing: Tool[] | undefined;

  const protocol = server.server;
  // Throws when tools were already registered (by an earlier call or by `registerTool`), so a
  // server never mixes these tools with tools that skipped these checks.
  protocol.assertCanSetRequestHandler(ListToolsRequestSchema.shape.method.value);
  protocol.assertCanSetRequestHandler(CallToolRequestSchema.shape.method.value);
  protocol.registerCapabilities({ tools: { listChanged: false } });
  protocol.setRequestHandler(ListToolsRequestSchema, () => {
    listing ??= [...byName.values()].map((definition) =>
      describeTool(definition, options.titleInAnnotations),
    );
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
        options.legacyKeys,
      );
      if (!checked.ok) return toolInputErrorResult(checked.error);
      // Validated: a plain object (or absent, which the schema read as {}).
      const rawArguments = (request.params.arguments ?? {}) as Record<string, unknown>;
      return runTool(
        definition,
        checked.data,
        { signal: extra.signal, rawArguments, progress: progressReporter(extra) },
        options,
      );
    },
  );
}

async function runTool<Context, Definition extends ToolDefinition<Context>>(
  definition: Definition,
  input: Record<string, unknown>,
  extra: ToolCallExtra,
  options: RegisterToolsOptions<Context, Definition>,
): Promise<CallToolResult> {
  let output: unknown;
  try {
    if (options.beforeCall !== undefined) await options.beforeCall();
    output = await definition.handler(options.context, input as never, extra);
  } catch (error) {
    if (!isConnectorError(error) && !extra.signal.aborted) {
      options.log(
        `${options.kind} tool ${definition.name} failed unexpectedly: ${describeUnexpected(error)}`,
      );
    }
    return withoutStructuredContent(options.toolError(error, extra.signal));
  }
  const checked = await definition.outputSchema.safeParseAsync(output);
  if (!checked.success) {
    // A handler bug: the client gets the generic text, the operator gets the schema issues.
    options.log(
      `${options.kind} tool ${definition.name} returned an invalid result: ${describeIssues(checked.error)}`,
    );
    return internalError(options.internalErrorText);
  }
  return toolSuccess(checked.data);
}

/** A server's fixed internal-error text (`<code>: <message>`) as a tool error result. */
function internalError(text: string): CallToolResult {
  const colon = text.indexOf(": ");
  return colon < 0
    ? toolErrorResult({ code: "internal", message: text }, text)
    : toolErrorResult({ code: text.slice(0, colon), message: text.slice(colon + 2) }, text);
}

/** What every tool must be before it is listed: strict inputs, an object output, words for people. */
function assertRegistrable(label: string, definition: ToolDefinition<unknown>): void {
  const { name } = definition;
  const loose =
    definition.inputSchema instanceof z.ZodObject ? findLooseObject(definition.inputSchema) : "input";
  if (loose !== undefined) {
    throw new Error(
      `${label} ${name} needs strict objects (z.strictObject) so unknown keys are refused: ${loose}`,
    );
  }
  if (!(definition.outputSchema instanceof z.ZodObject)) {
    throw new Error(`${label} ${name} needs an object output schema`);
  }
  if (definition.title.trim() === "" || definition.description.trim() === "") {
    throw new Error(`${label} ${name} needs a title and a description`);
  }
}

function describeTool(definition: ToolDefinition<unknown>, titleInAnnotations = false): Tool {
  return {
    name: definition.name,
    title: definition.title,
    description: definition.description,
    inputSchema: toolJsonSchema(definition.inputSchema, "input") as Tool["inputSchema"],
    outputSchema: toolJsonSchema(definition.outputSchema, "output") as Tool["outputSchema"],
    annotations: titleInAnnotations
      ? { title: definition.title, ...definition.annotations }
      : { ...definition.annotations },
    ...(definition._meta === undefined ? {} : { _meta: { ...definition._meta } }),
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

/** `notifications/progress` for this request's token, with a progress value that only grows. */
function progressReporter(extra: {
  _meta?: { progressToken?: string | number };
  sendNotification: (notification: ServerNotification) => Promise<void>;
}): (message: string) => Promise<void> {
  const token = extra._meta?.progressToken;
  let progress = 0;
  return async (message) => {
    if (token === undefined) return;
    progress += 1;
    await extra
      .sendNotification({
        method: "notifications/progress",
        params: { progressToken: token, progress, message },
      })
      .catch(() => undefined);
  };
}
