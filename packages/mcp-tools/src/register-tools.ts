import {
  type CallToolResult,
  isInputRequiredResult,
  ProtocolError,
  ProtocolErrorCode,
  type ServerContext,
  type Tool,
} from "@modelcontextprotocol/server";
import { isConnectorError } from "@t3-connector/core";
import { findLooseObject } from "@t3-connector/core/schema";
import * as z from "zod";
import { callingClient } from "./calling-client.js";
import type { ToolCallExtra, ToolDefinition } from "./tool-definition.js";
import { toolErrorResult, withoutStructuredContent } from "./tool-error-result.js";
import { checkToolInput, toolInputErrorResult } from "./tool-input.js";
import { toolJsonSchema } from "./tool-json-schema.js";
import type { ToolServer } from "./tool-server.js";
import { toolSuccess } from "./tool-success.js";
import { retriedCall, urlInputRequired } from "./url-input.js";

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
 * server directly. Shared by the read server and the write bridge (ADR 0016), for both eras of
 * MCP: 2025 sessions and 2026-07-28 per-request calls reach the same handlers (ADR 0046).
 *
 * Why not `McpServer.registerTool`: it reports a schema failure as the text "Input validation
 * error: …", which names neither our error code nor the fix, and it turns `arguments: null` into
 * a protocol error. Our contract (ADR 0004, ADR 0021) is a tool result with `isError: true`,
 * a text naming the code and the fix, the same facts in `_meta["t3-connector/error"]`, and no
 * `structuredContent` (a client checks that against the output schema, even on an error). Owning both
 * handlers has a useful side effect: a second registration on the same server throws (the
 * handlers already exist), so no tool can bypass the checks below.
 *
 * Call it once per server, before `connect`; a second call throws.
 */
export function registerTools<Context, Definition extends ToolDefinition<Context>>(
  server: ToolServer,
  definitions: readonly Definition[],
  options: RegisterToolsOptions<Context, Definition>,
): void {
  registerToolGroups(server, [toolGroup(definitions, options)]);
}

/**
 * Tools with one context and one set of options (a server's own error texts, legacy keys, checks),
 * ready to be served beside other groups: `serve --http` answers a session allowed to write with
 * the read tools and the bridge's write tools on one server (ADR 0049).
 */
export interface ToolGroup {
  /** Every name the group answers a call for, listed or not. */
  readonly names: readonly string[];
  /** The group's entries in `tools/list` (a group may answer calls for tools it does not list). */
  list(): Tool[];
  call(call: ToolCall): Promise<CallToolResult>;
}

/** One `tools/call` as a group answers it: the tool's name, the server, and the request's context. */
export interface ToolCall {
  readonly name: string;
  readonly server: ToolServer;
  readonly ctx: ServerContext;
}

/** Checks `definitions` and builds their group (it throws on a tool that may not be registered). */
export function toolGroup<Context, Definition extends ToolDefinition<Context>>(
  definitions: readonly Definition[],
  options: RegisterToolsOptions<Context, Definition>,
): ToolGroup {
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
  // definitions never change while the process runs (HTTP builds a server per request).
  const listing = lazyListing(byName, options.titleInAnnotations);
  return {
    names: [...byName.keys()],
    list: listing,
    async call({ name, server, ctx }) {
      const definition = byName.get(name) as Definition;
      // `arguments` exactly as sent (ToolServer): the SDK's copy would lack a `__proto__` key.
      const sent = server.sentArgumentsOf(ctx);
      const checked = await checkToolInput(definition.name, definition.inputSchema, sent, options.legacyKeys);
      if (!checked.ok) return toolInputErrorResult(checked.error);
      // Validated: a plain object (or absent, which the schema read as {}).
      const rawArguments = (sent ?? {}) as Record<string, unknown>;
      return runTool(
        definition,
        checked.data,
        callExtra(server, definition.name, ctx, rawArguments),
        options,
      );
    },
  };
}

/**
 * Serves several groups on one server: `tools/list` lists each group's tools in order, and a call
 * goes to the group that names the tool. Two groups naming the same tool are refused.
 */
export function registerToolGroups(server: ToolServer, groups: readonly ToolGroup[]): void {
  const owner = new Map<string, ToolGroup>();
  for (const group of groups) {
    for (const name of group.names) {
      if (owner.has(name)) throw new Error(`Tool ${name} is served by two groups`);
      owner.set(name, group);
    }
  }
  // Throws when tools were already registered by an earlier call, so a server never mixes these
  // tools with tools that skipped these checks.
  server.assertCanSetRequestHandler("tools/list");
  server.assertCanSetRequestHandler("tools/call");
  server.registerCapabilities({ tools: { listChanged: false } });
  server.setRequestHandler("tools/list", () => ({ tools: groups.flatMap((group) => group.list()) }));
  server.setRequestHandler("tools/call", async (request, ctx): Promise<CallToolResult> => {
    const group = owner.get(request.params.name);
    if (group === undefined) {
      // No tool, so no result to carry the error: this one stays a protocol error.
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Tool ${request.params.name} not found`);
    }
    return group.call({ name: request.params.name, server, ctx });
  });
}

/** The listing, built at its first use and then kept. */
function lazyListing(
  byName: ReadonlyMap<string, ToolDefinition<unknown>>,
  titleInAnnotations: boolean | undefined,
): () => Tool[] {
  let listing: Tool[] | undefined;
  return () => {
    listing ??= [...byName.values()].map((definition) => describeTool(definition, titleInAnnotations));
    return listing;
  };
}

function callExtra(
  server: ToolServer,
  tool: string,
  ctx: ServerContext,
  rawArguments: Record<string, unknown>,
): ToolCallExtra {
  const retry = retriedCall(tool, ctx);
  return {
    signal: ctx.mcpReq.signal,
    rawArguments,
    progress: progressReporter(ctx),
    client: callingClient(server, ctx),
    ...(retry === undefined ? {} : { retry }),
    askToOpenUrl: (request) => urlInputRequired(tool, request, ctx),
  };
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
  // A 2026-07-28 `input_required` round is not the tool's output: the client answers and calls again.
  if (isInputRequiredResult(output)) return output as unknown as CallToolResult;
  // Checked once on the way in (ADR 0072): a result made of an answer already checked is not checked again.
  if (definition.outputAlreadyChecked === true) return toolSuccess(output as Record<string, unknown>);
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

/**
 * `notifications/progress` for this request's token, with a progress value that only grows. Sent
 * as a notification related to the request, which both eras allow (2026-07-28 carries it on the
 * request's own response stream).
 */
function progressReporter(ctx: ServerContext): (message: string) => Promise<void> {
  const token = ctx.mcpReq._meta?.progressToken;
  let progress = 0;
  return async (message) => {
    if (token === undefined) return;
    progress += 1;
    await ctx.mcpReq
      .notify({ method: "notifications/progress", params: { progressToken: token, progress, message } })
      .catch(() => undefined);
  };
}
