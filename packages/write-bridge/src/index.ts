export type { BridgeContext, BridgeToolDefinition, ClientHolder, ToolAnnotations } from "./bridge-tool.js";
export { readCapability } from "./capability-file.js";
export { bridgeToolGroup } from "./register-bridge-tools.js";
export {
  createRelayClient,
  type RelayBody,
  type RelayClient,
  type RelayClientOptions,
} from "./relay-client.js";
export { relayErrorToConnectorError } from "./relay-errors.js";
export { type RunBridgeOptions, type RunningBridge, runBridge } from "./run-bridge.js";
export {
  BRIDGE_INSTRUCTIONS,
  BRIDGE_SERVER_NAME,
  type BridgeServerOptions,
  createBridgeServer,
} from "./server.js";
export { type SessionBridgeContextOptions, sessionBridgeContext } from "./session-context.js";
export { SessionLeases } from "./session-leases.js";
export { BRIDGE_TOOLS, WRITE_SIDE_TOOLS } from "./tools/index.js";
