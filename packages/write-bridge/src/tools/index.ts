import type { BridgeToolDefinition } from "../bridge-tool.js";
import { approvalTool } from "./approval-tool.js";
import { conditionalSendTool } from "./conditional-send-tool.js";
import { LEASED_READ_TOOLS } from "./leased-read-tools.js";
import { preflightTool } from "./preflight-tool.js";
import { reconcileTool } from "./reconcile-tool.js";
import { threadsBatchTool } from "./threads-batch-tool.js";
import { WRITE_TOOLS } from "./write-tools.js";

export { approvalTool } from "./approval-tool.js";
export { conditionalSendResultSchema, conditionalSendTool } from "./conditional-send-tool.js";
export { LEASED_READ_TOOLS } from "./leased-read-tools.js";
export { PREFLIGHT_TOOL_NAME, preflightTool } from "./preflight-tool.js";
export { reconcileTool } from "./reconcile-tool.js";
export { threadsBatchResultSchema, threadsBatchTool } from "./threads-batch-tool.js";
export { WRITE_TOOLS, writeResultSchema } from "./write-tools.js";

/**
 * Every tool of the bridge. `t3_escrever_thread_conditional_send` follows the 42 writes and goes
 * to the gate's own `conditional_send` op: relaying it as two plain writes would lose the re-check
 * right before the send that makes it safe.
 */
export const BRIDGE_TOOLS: readonly BridgeToolDefinition[] = [
  approvalTool,
  ...WRITE_TOOLS,
  conditionalSendTool,
  threadsBatchTool,
  preflightTool,
  ...LEASED_READ_TOOLS,
  reconcileTool,
] as BridgeToolDefinition[];

/**
 * The bridge's tools that change something or ask to: what a server that already serves the read
 * tools adds for a client allowed to write (`serve --http`, ADR 0049). The leased reads are left
 * out: that server answers the same names from its own read tools.
 */
export const WRITE_SIDE_TOOLS: readonly BridgeToolDefinition[] = [
  approvalTool,
  ...WRITE_TOOLS,
  conditionalSendTool,
  threadsBatchTool,
  preflightTool,
  reconcileTool,
] as BridgeToolDefinition[];
