import type { CallToolResult } from "@modelcontextprotocol/server";

/** A successful result: the structured output, and the same JSON as text for clients that only read text. */
export function toolSuccess(output: Record<string, unknown>): CallToolResult {
  return { structuredContent: output, content: [{ type: "text", text: JSON.stringify(output) }] };
}
