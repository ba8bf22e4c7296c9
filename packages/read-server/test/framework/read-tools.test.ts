import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { ConnectorError } from "@t3-connector/core";
import { ToolServer } from "@t3-connector/mcp-tools";
import { toolInputError } from "@t3-connector/test-support/tool-input-error";
import { afterEach, describe, expect, it } from "vitest";
import * as z from "zod";
import { createProcessReadContext } from "../../src/read-context.js";
import { defineReadTool, READ_ONLY_ANNOTATIONS, type ReadToolDefinition } from "../../src/read-tool.js";
import { registerReadTools } from "../../src/register-read-tools.js";
import { type Connected, connect, deferred } from "./harness.js";

// Test-only definitions: they exercise the framework, not any product tool.
function echoTool(calls: { count: number }) {
  return defineReadTool({
    name: "test_echo",
    title: "Echo (test)",
    description: "Returns its input. Test-only.",
    inputSchema: z.strictObject({
      text: z.string(),
      environment: z.string().optional(),
      limit: z.number().int().min(1).optional(),
    }),
    outputSchema: z.object({ text: z.string(), environment: z.string().nullable(), calls: z.number() }),
    annotations: READ_ONLY_ANNOTATIONS,
    handler: async (_context, input) => {
      calls.count++;
      return { text: input.text, environment: input.environment ?? null, calls: calls.count };
    },
  });
}

const failingTool = defineReadTool({
  name: "test_fail",
  title: "Fail (test)",
  description: "Always fails with a ConnectorError. Test-only.",
  inputSchema: z.strictObject({}),
  outputSchema: z.object({}),
  annotations: READ_ONLY_ANNOTATIONS,
  handler: async () => {
    throw new ConnectorError("thread_not_found", "thread t-1 does not exist in environment local");
  },
});

const crashingTool = defineReadTool({
  name: "test_crash",
  title: "Crash (test)",
  description: "Fails with a plain error carrying a path. Test-only.",
  inputSchema: z.strictObject({}),
  outputSchema: z.object({}),
  annotations: READ_ONLY_ANNOTATIONS,
  handler: async () => {
    throw new TypeError("cannot read /home/someone/.config/t3-connector/tokens/local.token");
  },
});

const badOutputTool = defineReadTool({
  name: "test_bad_output",
  title: "Bad output (test)",
  description: "Returns a result that violates its output schema. Test-only.",
  inputSchema: z.strictObject({}),
  outputSchema: z.object({ total: z.number() }),
  annotations: READ_ONLY_ANNOTATIONS,
  // biome-ignore lint/suspicious/noExplicitAny: the point is to break the declared output type
  handler: async () => ({ total: "many" }) as any,
});

function waitingTool(started: () => void, sawAbort: (reason: unknown) => void) {
  return defineReadTool({
    name: "test_wait",
    title: "Wait (test)",
    description: "Waits until the request is cancelled. Test-only.",
    inputSchema: z.strictObject({}),
    outputSchema: z.object({}),
    annotations: READ_ONLY_ANNOTATIONS,
    handler: (_context, _input, extra) =>
      new Promise((_resolve, reject) => {
        extra.signal.addEventListener("abort", () => {
          sawAbort(extra.signal.reason);
          reject(new ConnectorError("cancelled", "the client cancelled the wait"));
        });
        started();
      }),
  });
}

async function protocolError(call: Promise<unknown>): Promise<McpError> {
  try {
    await call;
  } catch (error) {
    if (error instanceof McpError) return error;
    throw error;
  }
  throw new Error("expected a JSON-RPC error, got a result");
}

function textOf(result: unknown): string {
  const content = (result as { content?: Array<{ type: string; text?: string }> }).content ?? [];
  expect(content).toHaveLength(1);
  expect(content[0]?.type).toBe("text");
  return content[0]?.text ?? "";
}

let session: Connected | undefined;
afterEach(async () => {
  await session?.close();
  session = undefined;
});

describe("strict inputs", () => {
  it.each([
    ["__proto__", '{"text":"hi","__proto__":{"limit":0}}'],
    ["constructor", '{"text":"hi","constructor":{"name":"x"}}'],
    ["prototype", '{"text":"hi","prototype":{}}'],
  ])("refuses a %s key like any unknown key, before the handler runs", async (key, json) => {
    const calls = { count: 0 };
    session = await connect([echoTool(calls)]);
    // JSON.parse makes the key an own property, as a client's JSON on the wire would.
    const error = await toolInputError(session.client, "test_echo", JSON.parse(json));
    expect(error).toMatchObject({ code: "invalid_input", message: `test_echo: "${key}" is not a parameter` });
    expect(calls.count).toBe(0);
  });

  it("answers an unknown key as an invalid_input tool error before the handler runs", async () => {
    const calls = { count: 0 };
    session = await connect([echoTool(calls)]);
    const error = await toolInputError(session.client, "test_echo", { text: "hi", colour: "blue" });
    expect(error).toMatchObject({ code: "invalid_input", message: 'test_echo: "colour" is not a parameter' });
    expect(error.hint).toContain('Remove "colour"');
    expect(calls.count).toBe(0);
  });

  it("answers the legacy key ambiente as a tool error naming environment", async () => {
    const calls = { count: 0 };
    session = await connect([echoTool(calls)]);
    const error = await toolInputError(session.client, "test_echo", { text: "hi", ambiente: "remote" });
    expect(error.code).toBe("invalid_input");
    expect(error.hint).toContain('"ambiente" is now "environment"');
    expect(calls.count).toBe(0);
  });

  it("answers a wrong type and an out-of-range value as tool errors naming the parameter", async () => {
    const calls = { count: 0 };
    session = await connect([echoTool(calls)]);
    const range = await toolInputError(session.client, "test_echo", { text: "hi", limit: 0 });
    expect(range.message).toMatch(/^test_echo: "limit": /);
    const type = await toolInputError(session.client, "test_echo", { text: 42 });
    expect(type.message).toMatch(/^test_echo: "text": /);
    expect(calls.count).toBe(0);
  });

  it("answers arguments: null as a tool error, not a protocol error", async () => {
    const calls = { count: 0 };
    session = await connect([echoTool(calls)]);
    const error = await toolInputError(session.client, "test_echo", null);
    expect(error.message).toBe("test_echo takes an object of named arguments, not null");
    expect(calls.count).toBe(0);
  });

  it("keeps an unknown tool a JSON-RPC -32602 protocol error", async () => {
    session = await connect([]);
    const error = await protocolError(
      session.client.callTool({ name: "t3_escrever_thread_send", arguments: {} }),
    );
    expect(error.code).toBe(ErrorCode.InvalidParams);
  });
});

describe("results", () => {
  it("returns structuredContent and the same JSON as text", async () => {
    const calls = { count: 0 };
    session = await connect([echoTool(calls)]);
    const result = await session.client.callTool({
      name: "test_echo",
      arguments: { text: "olá", environment: "local" },
    });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ text: "olá", environment: "local", calls: 1 });
    expect(JSON.parse(textOf(result))).toEqual(result.structuredContent);
  });

  it("turns a ConnectorError into a tool error whose text starts with the code", async () => {
    session = await connect([failingTool]);
    const result = await session.client.callTool({ name: "test_fail", arguments: {} });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe("thread_not_found: thread t-1 does not exist in environment local");
  });

  it("hides any other failure behind a fixed text, without message or stack", async () => {
    session = await connect([crashingTool]);
    const result = await session.client.callTool({ name: "test_crash", arguments: {} });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe("internal: failed to query T3");
    expect(session.logs.join("\n")).toContain("test_crash failed unexpectedly");
  });

  it("reports a result that breaks the output schema as internal, and logs why", async () => {
    session = await connect([badOutputTool]);
    const result = await session.client.callTool({ name: "test_bad_output", arguments: {} });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe("internal: failed to query T3");
    expect(session.logs.join("\n")).toContain("test_bad_output returned an invalid result: total:");
  });
});

describe("tools/list", () => {
  it("lists every tool with its title, schemas and the four explicit annotations", async () => {
    session = await connect([echoTool({ count: 0 }), failingTool]);
    const { tools } = await session.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(["test_echo", "test_fail"]);
    for (const tool of tools) {
      expect(tool.annotations).toEqual({
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      });
      expect(tool.title).toMatch(/\(test\)$/);
      expect(tool.inputSchema.additionalProperties).toBe(false);
      expect(tool.outputSchema?.type).toBe("object");
    }
    expect(tools[0]?.inputSchema.required).toEqual(["text"]);
  });
});

describe("registration", () => {
  const context = createProcessReadContext({
    config: { path: "(test)", default: "", environments: [] },
    log: () => {},
  });
  const base = echoTool({ count: 0 });

  it("refuses a definition whose annotations are not read-only", () => {
    const variants = [
      { ...READ_ONLY_ANNOTATIONS, readOnlyHint: false },
      { ...READ_ONLY_ANNOTATIONS, destructiveHint: true },
      { ...READ_ONLY_ANNOTATIONS, idempotentHint: false },
      { ...READ_ONLY_ANNOTATIONS, openWorldHint: true },
      { readOnlyHint: true },
    ];
    for (const annotations of variants) {
      const definition = { ...base, annotations } as unknown as ReadToolDefinition;
      const server = new ToolServer({ name: "t", version: "0" });
      expect(() => registerReadTools(server, [definition], context)).toThrow(/must declare/);
    }
  });

  it("refuses an input schema that would silently strip unknown keys", () => {
    const loose = { ...base, inputSchema: z.object({ text: z.string() }) } as unknown as ReadToolDefinition;
    const server = new ToolServer({ name: "t", version: "0" });
    expect(() => registerReadTools(server, [loose], context)).toThrow(/needs strict objects .*: input$/);
  });

  it("refuses an input whose nested object would silently strip unknown keys", () => {
    const nested = {
      ...base,
      inputSchema: z.strictObject({ items: z.array(z.object({ threadId: z.string() })) }),
    } as unknown as ReadToolDefinition;
    const server = new ToolServer({ name: "t", version: "0" });
    expect(() => registerReadTools(server, [nested], context)).toThrow(/input\.items\[\]$/);
  });

  it("refuses two definitions with the same name", () => {
    const server = new ToolServer({ name: "t", version: "0" });
    expect(() => registerReadTools(server, [base, base], context)).toThrow(/defined twice/);
  });

  it("refuses a server that already has tool handlers, set by hand or by an earlier call", () => {
    const withHandler = new ToolServer({ name: "t", version: "0" }, { capabilities: { tools: {} } });
    withHandler.setRequestHandler("tools/list", () => ({ tools: [] }));
    expect(() => registerReadTools(withHandler, [base], context)).toThrow(/tools\/list already exists/);

    const twice = new ToolServer({ name: "t", version: "0" });
    registerReadTools(twice, [base], context);
    expect(() => registerReadTools(twice, [], context)).toThrow(/tools\/list already exists/);
  });

  it("leaves no way to replace the tool handlers afterwards", () => {
    const server = new ToolServer({ name: "t", version: "0" });
    registerReadTools(server, [base], context);
    expect(() => server.setRequestHandler("tools/call", () => ({ content: [] }))).toThrow(
      /tools\/call already exists/,
    );
    expect(() => server.setRequestHandler("tools/list", () => ({ tools: [] }))).toThrow(
      /tools\/list already exists/,
    );
  });
});

describe("cancellation", () => {
  it("aborts the handler's signal when the client cancels the request", async () => {
    const started = deferred();
    const aborted = deferred<unknown>();
    session = await connect([waitingTool(started.resolve, aborted.resolve)]);
    const controller = new AbortController();
    const call = session.client.callTool({ name: "test_wait", arguments: {} }, undefined, {
      signal: controller.signal,
    });
    await started.promise;
    controller.abort("user hung up");
    const reason = await aborted.promise;
    expect(reason).toBeDefined();
    await expect(call).rejects.toThrow();
  });
});
