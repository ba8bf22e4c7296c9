import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { isConnectorError } from "@t3-connector/core";

export { toolSuccess } from "@t3-connector/mcp-tools";

/** Text of the fallback error: nothing about the cause leaves the process. */
export const INTERNAL_ERROR_TEXT = "internal: failed to query T3";
export const CANCELLED_ERROR_TEXT = "cancelled: the client cancelled the request";

/**
 * A failed call as an MCP tool error. A `ConnectorError` keeps its stable code at the start of
 * the text (`"<code>: <message>"`) so a client can branch on it; anything else is a bug or an
 * unexpected failure and gets a fixed text, never its message or stack, which could carry paths
 * or T3 internals.
 */
export function toolError(error: unknown, signal: AbortSignal): CallToolResult {
  let text = INTERNAL_ERROR_TEXT;
  if (isConnectorError(error)) text = error.toString();
  else if (signal.aborted) text = CANCELLED_ERROR_TEXT;
  return { isError: true, content: [{ type: "text", text }] };
}
