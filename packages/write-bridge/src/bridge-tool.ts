/**
 * One bridge tool, as data: a strict input schema (validated before anything is relayed), MCP
 * annotations spelled out, and a handler that talks to the gate through the relay client only.
 */
import type { Timers } from "@t3-connector/core/t3";
import type { ToolCallExtra } from "@t3-connector/mcp-tools";
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

/**
 * What a call gives a handler beyond its input: the signal, progress, the calling client and its
 * era, and the 2026-07-28 way to ask for input (see mcp-tools' ToolCallExtra).
 */
export type BridgeToolExtra = ToolCallExtra;

/** A URL-mode `elicitation/create` (the client shows the link and asks the user to open it). */
export interface UrlElicitation {
  readonly message: string;
  readonly url: string;
  readonly elicitationId: string;
}

export type ElicitationAction = "accept" | "decline" | "cancel";

export interface BridgeContext {
  readonly relay: RelayClient;
  readonly now: () => number;
  /** Where a call that waits for the person arms its progress reports (real, unref'd timers in production). */
  readonly timers: Timers;
  /** A random id of this bridge process: its newer approval request supersedes its older one. */
  readonly bridgeId: string;
  /**
   * Presents a link through a 2025 client's URL elicitation (`elicitation/create`); rejects when
   * the client cannot. A 2026-07-28 client is asked through `extra.askToOpenUrl` instead.
   */
  readonly elicitUrl: (request: UrlElicitation, signal: AbortSignal) => Promise<ElicitationAction>;
  /** Tells the client an out-of-band elicitation finished (`notifications/elicitation/complete`). */
  readonly elicitationComplete: (elicitationId: string) => Promise<void>;
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
