import type { BridgeToolDefinition } from "../bridge-tool.js";
import { approvalTool } from "./approval-tool.js";
import { LEASED_READ_TOOLS } from "./leased-read-tools.js";
import { reconcileTool } from "./reconcile-tool.js";
import { WRITE_TOOLS } from "./write-tools.js";

export { approvalTool } from "./approval-tool.js";
export { LEASED_READ_TOOLS } from "./leased-read-tools.js";
export { reconcileTool } from "./reconcile-tool.js";
export { WRITE_TOOLS, writeResultSchema } from "./write-tools.js";

/**
 * Every tool of the bridge. `t3_escrever_thread_conditional_send` is not here: the gate's relay
 * has no op that runs the conditional send, and relaying it as two plain writes would lose the
 * re-check right before the send that makes it safe.
 */
export const BRIDGE_TOOLS: readonly BridgeToolDefinition[] = [
  approvalTool,
  ...WRITE_TOOLS,
  ...LEASED_READ_TOOLS,
  reconcileTool,
] as BridgeToolDefinition[];
