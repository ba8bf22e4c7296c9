import type * as z from "zod";
import type { ReadContext } from "./read-context.js";

/**
 * The annotations every read tool carries, spelled out so that clients never have to rely on the
 * protocol defaults (which assume a destructive, open-world tool).
 */
export interface ReadOnlyAnnotations {
  readonly readOnlyHint: true;
  readonly destructiveHint: false;
  readonly idempotentHint: true;
  readonly openWorldHint: false;
}

export const READ_ONLY_ANNOTATIONS: ReadOnlyAnnotations = Object.freeze({
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
});

/** What the MCP request gives a handler beyond its input. */
export interface ReadToolExtra {
  /** Aborted when the client cancels the request (MCP `notifications/cancelled`) or the connection closes. */
  readonly signal: AbortSignal;
}

/**
 * One read tool, as data. `inputSchema` must be a strict object (`z.strictObject`): an unknown or
 * legacy key is then refused instead of being dropped, which once re-routed calls to the wrong
 * environment.
 */
export interface ReadToolDefinition<
  Name extends string = string,
  Input extends z.ZodObject = z.ZodObject,
  Output extends z.ZodObject = z.ZodObject,
> {
  readonly name: Name;
  /** Short English title for people. */
  readonly title: string;
  /** Tells a model when and how to call the tool. */
  readonly description: string;
  readonly inputSchema: Input;
  readonly outputSchema: Output;
  readonly annotations: ReadOnlyAnnotations;
  /** The tool's `_meta` in `tools/list`: only the board's link (MCP Apps) so far. */
  readonly _meta?: Readonly<Record<string, unknown>>;
  // Method syntax on purpose: it lets a list of differently typed definitions share one array type.
  handler(context: ReadContext, input: z.output<Input>, extra: ReadToolExtra): Promise<z.input<Output>>;
}

/** Identity helper that infers the name literal and the schema types of a definition. */
export function defineReadTool<Name extends string, Input extends z.ZodObject, Output extends z.ZodObject>(
  definition: ReadToolDefinition<Name, Input, Output>,
): ReadToolDefinition<Name, Input, Output> {
  return definition;
}
