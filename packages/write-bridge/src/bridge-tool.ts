/**
 * One bridge tool, as data: a strict input schema (validated before anything is relayed), MCP
 * annotations spelled out, and a handler that talks to the gate through the relay client only.
 */
import type * as z from "zod";
import type { RelayClient } from "./relay-client.js";

export interface ToolAnnotations {
  readonly readOnlyHint: boolean;
  readonly destructiveHint: boolean;
  readonly idempotentHint: boolean;
  readonly openWorldHint: false;
}

export const READ_ONLY: ToolAnnotations = Object.freeze({
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
});

export interface BridgeToolExtra {
  readonly signal: AbortSignal;
  /** The arguments exactly as the client sent them (already validated against `inputSchema`). */
  readonly rawArguments: Record<string, unknown>;
}

export interface BridgeContext {
  readonly relay: RelayClient;
  readonly now: () => number;
}

export interface BridgeToolDefinition<Input extends z.ZodObject = z.ZodObject> {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly inputSchema: Input;
  readonly outputSchema: z.ZodObject;
  readonly annotations: ToolAnnotations;
  // Method syntax on purpose: lets differently typed definitions share one array type.
  handler(
    context: BridgeContext,
    input: z.output<Input>,
    extra: BridgeToolExtra,
  ): Promise<Record<string, unknown>>;
}

export function defineBridgeTool<Input extends z.ZodObject>(
  definition: BridgeToolDefinition<Input>,
): BridgeToolDefinition<Input> {
  return definition;
}
