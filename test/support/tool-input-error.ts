import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { expect } from "vitest";

/** Where both servers put a tool error's fields (ADR 0021); the model reads the text. */
const ERROR_META_KEY = "t3-connector/error";

/** What both MCP servers answer for a bad argument (ADR 0004, ADR 0021): a tool error the model can read. */
export interface ToolInputErrorSeen {
  code: string;
  message: string;
  hint: string;
  /** The text content, which the model reads. */
  text: string;
}

/**
 * Calls `name` with `args` (sent as given, `null` included) through the SDK's own
 * `Client.callTool`, with its default output-schema validation, and checks the answer is a tool
 * result with `isError: true`, no `structuredContent` (which that client would check against the
 * tool's output schema and throw -32602 on), `_meta["t3-connector/error"] {code, message, hint}`
 * and a text that carries the same code, message and hint once each. Returns what the model reads.
 *
 * `callTool` checks output only against a schema it has seen: the client lists the tools first
 * (once per client), as every real client does before calling.
 */
export async function toolInputError(
  client: Client,
  name: string,
  args: unknown,
): Promise<ToolInputErrorSeen> {
  await listedOnce(client);
  const result = await client.callTool({ name, arguments: args as Record<string, unknown> });
  expect(result.isError, JSON.stringify(args)).toBe(true);
  expect(result.structuredContent, JSON.stringify(args)).toBeUndefined();
  const error = (result._meta as Record<string, unknown> | undefined)?.[ERROR_META_KEY];
  expect(error, JSON.stringify(args)).toMatchObject({
    code: expect.any(String),
    message: expect.any(String),
    hint: expect.any(String),
  });
  const text = (result.content as Array<{ type: string; text?: string }> | undefined)?.[0]?.text ?? "";
  const seen = error as { code: string; message: string; hint: string };
  expect(text).toBe(`${seen.code}: ${seen.message}. ${seen.hint}`);
  // No doubled prefix, no repeated hint.
  expect(text.split(`${seen.code}:`).length).toBe(2);
  expect(text.split(seen.hint).length).toBe(2);
  return { code: seen.code, message: seen.message, hint: seen.hint, text };
}

const listed = new WeakSet<Client>();

async function listedOnce(client: Client): Promise<void> {
  if (listed.has(client)) return;
  await client.listTools();
  listed.add(client);
}
