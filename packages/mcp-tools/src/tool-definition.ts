import type { InputRequiredResult } from "@modelcontextprotocol/server";
import type * as z from "zod";
import type { CallingClient } from "./calling-client.js";
import type { RetriedCall, UrlInputRequest } from "./url-input.js";

/**
 * What every tool of both MCP servers is, as data: names, a strict input schema, an object output
 * schema, the annotations spelled out, and a handler. The read server's `ReadToolDefinition` and
 * the bridge's `BridgeToolDefinition` are this shape with their own context and annotation types.
 */
export interface ToolDefinition<Context> {
  readonly name: string;
  /** Short English title for people. */
  readonly title: string;
  /** Tells a model when and how to call the tool. */
  readonly description: string;
  readonly inputSchema: z.ZodObject;
  readonly outputSchema: z.ZodObject;
  /** The four MCP hints, each explicit (the protocol defaults assume a destructive, open-world tool). */
  readonly annotations: object;
  /**
   * True when the handler's result is built only from a value already checked against a schema
   * that implies `outputSchema` (the bridge's write tools: the gate's answer, checked by the relay
   * contract): the output schema is listed but not run again on the result (ADR 0072).
   */
  readonly outputAlreadyChecked?: true;
  /** Listed as the tool's `_meta` when present (e.g. MCP Apps' `ui.resourceUri`, the view it links to). */
  readonly _meta?: Readonly<Record<string, unknown>>;
  // Method syntax on purpose: lets differently typed definitions share one array type.
  handler(context: Context, input: never, extra: ToolCallExtra): Promise<unknown>;
}

/** What a call gives a handler beyond its validated input. */
export interface ToolCallExtra {
  /** Aborted when the client cancels the request (MCP `notifications/cancelled`) or the connection closes. */
  readonly signal: AbortSignal;
  /** The arguments exactly as the client sent them (already validated against `inputSchema`). */
  readonly rawArguments: Record<string, unknown>;
  /**
   * Reports progress of a long call (MCP `notifications/progress`), so a client that resets its
   * request timeout on progress keeps waiting. Sent only when the request carried a
   * `progressToken`; otherwise it does nothing. A failed send is ignored: progress is advisory.
   */
  readonly progress: (message: string) => Promise<void>;
  /** Who is calling, and in which era of MCP (2025 session or 2026-07-28 per-request envelope). */
  readonly client: CallingClient;
  /**
   * A 2026-07-28 call that comes back with the answers to an `input_required` result this tool
   * returned (see `askToOpenUrl`); absent on a first call and in the 2025 era.
   */
  readonly retry?: RetriedCall;
  /**
   * The 2026-07-28 way to have the person open a link: the handler returns what this resolves
   * to, and the client calls the tool again with the answer (`retry`). Only for a client with
   * `client.era === "modern"` and `client.urlElicitation`.
   */
  readonly askToOpenUrl: (request: UrlInputRequest) => Promise<ToolInputRequired>;
}

/** An `input_required` result of 2026-07-28: returned by a handler as it is, never checked as output. */
export type ToolInputRequired = InputRequiredResult;
