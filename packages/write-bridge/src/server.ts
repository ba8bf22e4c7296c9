import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { BridgeContext } from "./bridge-tool.js";
import { registerBridgeTools } from "./register-bridge-tools.js";
import type { RelayClient } from "./relay-client.js";
import { BRIDGE_TOOLS } from "./tools/index.js";

export const BRIDGE_SERVER_NAME = "t3-connector-write";
export const BRIDGE_VERSION = "0.1.0";

export interface BridgeServerOptions {
  readonly relay: RelayClient;
  readonly now?: () => number;
  /** stderr by default: stdout is the protocol. */
  readonly log?: (line: string) => void;
}

/** The write bridge's MCP server, not yet connected to a transport. */
export function createBridgeServer(options: BridgeServerOptions): McpServer {
  const server = new McpServer(
    { name: BRIDGE_SERVER_NAME, version: BRIDGE_VERSION },
    {
      instructions:
        "Writes to T3 need a lease the user approves with a passkey: call t3_pedir_aprovacao first. " +
        "Every write names its environment and an operationId; T3 never applies the same operationId twice. " +
        "On reconciliation_required repeat the very same call or call t3_reconciliar_escrita: the gate settles the write " +
        "(completed, refused, or still uncertain with the reason); never use a new operationId for it.",
    },
  );
  const context: BridgeContext = { relay: options.relay, now: options.now ?? Date.now };
  registerBridgeTools(server, BRIDGE_TOOLS, context, options.log ?? logToStderr);
  return server;
}

function logToStderr(line: string): void {
  process.stderr.write(`t3-connector-write bridge: ${line}\n`);
}
