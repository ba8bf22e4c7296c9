import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { expect } from "vitest";

/** What both MCP servers answer for a bad argument (ADR 0004): a tool error the model can read. */
export interface ToolInputErrorSeen {
  code: string;
  message: string;
  hint: string;
  /** The text content, which a client without structured content reads. */
  text: string;
}

/**
 * Calls `name` with `args` (sent as given, `null` included) and checks the answer is a tool
 * result with `isError: true`, `structuredContent.error {code, message, hint}` and a text that
 * carries the same code, message and hint once each. Returns what the model would read.
 *
 * A raw `tools/call` request, not `client.callTool`: SDK 1.32's client checks `structuredContent`
 * against the output schema even on an error result (typescript-sdk issue 1943; the spec and the
 * SDK's own server exempt error results), which would hide the error from this test.
 */
export async function toolInputError(
  client: Client,
  name: string,
  args: unknown,
): Promise<ToolInputErrorSeen> {
  const request = {
    method: "tools/call" as const,
    params: { name, arguments: args as Record<string, unknown> },
  };
  const result = (await client.request(request, CallToolResultSchema)) as {
    isError?: boolean;
    content?: Array<{ type: string; text?: string }>;
    structuredContent?: { error?: { code: string; message: string; hint: string } };
  };
  expect(result.isError, JSON.stringify(args)).toBe(true);
  const error = result.structuredContent?.error;
  expect(error, JSON.stringify(args)).toMatchObject({
    code: expect.any(String),
    message: expect.any(String),
    hint: expect.any(String),
  });
  const text = result.content?.[0]?.text ?? "";
  const seen = error as { code: string; message: string; hint: string };
  expect(text).toBe(`${seen.code}: ${seen.message}. ${seen.hint}`);
  // No doubled prefix, no repeated hint.
  expect(text.split(`${seen.code}:`).length).toBe(2);
  expect(text.split(seen.hint).length).toBe(2);
  return { ...seen, text };
}
