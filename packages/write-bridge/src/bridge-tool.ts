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

/** Who the gate's page names as the holder of a request and its lease. */
export interface ClientHolder {
  readonly name: string;
  readonly version?: string;
  /** For an OAuth session of `serve --http`: when the person signed the client in (ISO 8601). */
  readonly signedInAt?: string;
}

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
  /**
   * The holder the page names, when it is not the client's own word (`extra.client.info`): an
   * OAuth session of `serve --http` is named by the session the person allowed (ADR 0049).
   */
  readonly holder?: ClientHolder;
  /**
   * False when the transport cannot send a 2025 client a request (`serve --http` answers each
   * request on its own): the link then goes only in the result. 2026-07-28 clients are asked
   * through `extra.askToOpenUrl`, which any transport carries.
   */
  readonly elicitsFromLegacyClients?: boolean;
}

export interface BridgeToolDefinition<Input extends z.ZodObject = z.ZodObject> {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly inputSchema: Input;
  readonly outputSchema: z.ZodObject;
  /** The result is made of the gate's answer, which the relay contract checked (see mcp-tools' ToolDefinition). */
  readonly outputAlreadyChecked?: true;
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
