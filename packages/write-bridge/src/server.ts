import { randomUUID } from "node:crypto";
import { readPackageVersion } from "@t3-connector/core/cli-support";
import { systemTimers, type Timers } from "@t3-connector/core/t3";
import { ToolServer } from "@t3-connector/mcp-tools";
import type { BridgeContext } from "./bridge-tool.js";
import { registerBridgeTools } from "./register-bridge-tools.js";
import type { RelayClient } from "./relay-client.js";
import { BRIDGE_TOOLS } from "./tools/index.js";

export const BRIDGE_SERVER_NAME = "t3-connector-write";
/** How long the client may keep a URL elicitation open: the approval request's own lifetime. */
export const ELICITATION_TIMEOUT_MS = 120_000;
/** Sent in the `initialize` answer; `serve --http` adds it for a session allowed to write. */
export const BRIDGE_INSTRUCTIONS =
  "Writes to T3 need a lease the user approves with a passkey: call t3_pedir_aprovacao first. " +
  "Every write names its environment and an operationId; T3 never applies the same operationId twice. " +
  "On reconciliation_required repeat the very same call or call t3_reconciliar_escrita: the gate settles the write " +
  "(completed, refused, or still uncertain with the reason); never use a new operationId for it.";
/** From this package's package.json (`src/` and `dist/` are both one level below it). */
export function bridgeVersion(): string {
  return readPackageVersion(new URL("../package.json", import.meta.url));
}

export interface BridgeServerOptions {
  readonly relay: RelayClient;
  readonly now?: () => number;
  /**
   * Where a wait for the person's decision arms its progress reports (every APPROVAL_PROGRESS_MS);
   * real timers by default. A test fires the reports by hand.
   */
  readonly timers?: Timers;
  /** stderr by default: stdout is the protocol. */
  readonly log?: (line: string) => void;
  /** The process's id towards the gate (its newer request supersedes its older one); random by default. */
  readonly bridgeId?: string;
}

/**
 * The write bridge's MCP server, not yet connected to a transport. One instance serves one
 * connection of either era (ADR 0046); `bridgeId` names the process, so give every instance of
 * one process the same (`options.bridgeId`).
 */
export function createBridgeServer(options: BridgeServerOptions): ToolServer {
  const server = new ToolServer(
    { name: BRIDGE_SERVER_NAME, version: bridgeVersion() },
    {
      instructions: BRIDGE_INSTRUCTIONS,
    },
  );
  const context: BridgeContext = {
    relay: options.relay,
    now: options.now ?? Date.now,
    timers: options.timers ?? systemTimers,
    bridgeId: options.bridgeId ?? randomUUID(),
    async elicitUrl(request, signal) {
      const result = await server.elicitInput(
        { mode: "url", message: request.message, url: request.url, elicitationId: request.elicitationId },
        // The person has the request's lifetime (120 s) to agree to open the link.
        { signal, timeout: ELICITATION_TIMEOUT_MS },
      );
      return result.action;
    },
    async elicitationComplete(elicitationId) {
      await server.createElicitationCompletionNotifier(elicitationId)();
    },
  };
  registerBridgeTools(server, BRIDGE_TOOLS, context, options.log ?? logToStderr);
  return server;
}

function logToStderr(line: string): void {
  process.stderr.write(`t3-connector-write bridge: ${line}\n`);
}
