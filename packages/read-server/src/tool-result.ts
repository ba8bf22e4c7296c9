import type { CallToolResult } from "@modelcontextprotocol/server";
import { isConnectorError } from "@t3-connector/core";
import { toolErrorResult } from "@t3-connector/mcp-tools";

/** Text of the fallback error: nothing about the cause leaves the process. */
export const INTERNAL_ERROR_TEXT = "internal: failed to query T3";
export const CANCELLED_ERROR_TEXT = "cancelled: the client cancelled the request";

/**
 * A failed call as an MCP tool error. A `ConnectorError` keeps its stable code at the start of
 * the text (`"<code>: <message>"`) so a client can branch on it; anything else is a bug or an
 * unexpected failure and gets a fixed text, never its message or stack, which could carry paths
 * or T3 internals. The same code and message travel as fields in `_meta` (ADR 0021).
 */
export function toolError(error: unknown, signal: AbortSignal): CallToolResult {
  if (isConnectorError(error)) return toolErrorResult({ code: error.code, message: error.message });
  if (signal.aborted) {
    return toolErrorResult(
      { code: "cancelled", message: "the client cancelled the request" },
      CANCELLED_ERROR_TEXT,
    );
  }
  return toolErrorResult({ code: "internal", message: "failed to query T3" }, INTERNAL_ERROR_TEXT);
}
