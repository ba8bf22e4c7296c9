import type { CallToolResult } from "@modelcontextprotocol/server";

/**
 * The `_meta` key under which every tool error of both servers carries its typed form (ADR 0021).
 * A `_meta` key may have a prefix of dot-separated labels and a slash; ours names the product.
 */
export const TOOL_ERROR_META_KEY = "t3-connector/error";

/** A tool error as a program reads it: the stable code, the message, and the fix when there is one. */
export interface ToolErrorInfo {
  code: string;
  message: string;
  /** How to fix the call or what to do next, said once. */
  hint?: string;
  /** A finer reason a server may add (the gate's `reason`, T3's own tag); stable snake-case words. */
  reason?: string;
  t3?: string;
}

/** A tool error result as MCP shapes it; structurally a `CallToolResult` of the SDK. */
export interface ToolErrorResult {
  [key: string]: unknown;
  isError: true;
  content: Array<{ type: "text"; text: string }>;
  _meta: { [TOOL_ERROR_META_KEY]: ToolErrorInfo };
}

/**
 * A tool error result any MCP client can read (ADR 0021).
 *
 * - The model reads `content`: by default `<code>: <message>. <hint>`, the code first so a client
 *   that only sees text can still branch on it.
 * - A program reads `_meta["t3-connector/error"]`: the same facts as fields.
 * - There is no `structuredContent`: SDK 1.32's `Client.callTool` validates `structuredContent`
 *   against the tool's `outputSchema` even when `isError` is true, and throws -32602 when it does
 *   not match, so the model would never see the error. Without `structuredContent` the same
 *   client returns the result as it is (it only demands `structuredContent` when `isError` is
 *   not set).
 */
export function toolErrorResult(info: ToolErrorInfo, text = defaultText(info)): ToolErrorResult {
  return {
    isError: true,
    content: [{ type: "text", text }],
    _meta: { [TOOL_ERROR_META_KEY]: withoutEmpty(info) },
  };
}

/**
 * The rule the registration module applies to every error result, whatever a server's own
 * `toolError` built: an error result never carries `structuredContent` (see `toolErrorResult`).
 */
export function withoutStructuredContent(result: CallToolResult): CallToolResult {
  if (result.isError !== true || result.structuredContent === undefined) return result;
  const { structuredContent: _dropped, ...rest } = result;
  return rest;
}

function defaultText(info: ToolErrorInfo): string {
  return info.hint === undefined || info.hint === ""
    ? `${info.code}: ${info.message}`
    : `${info.code}: ${info.message}. ${info.hint}`;
}

function withoutEmpty(info: ToolErrorInfo): ToolErrorInfo {
  const out: ToolErrorInfo = { code: info.code, message: info.message };
  if (info.hint !== undefined && info.hint !== "") out.hint = info.hint;
  if (info.reason !== undefined && info.reason !== "") out.reason = info.reason;
  if (info.t3 !== undefined && info.t3 !== "") out.t3 = info.t3;
  return out;
}
