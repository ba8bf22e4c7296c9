import { Client as ModernClient, InMemoryTransport as ModernMemory } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { ConnectorError } from "@t3-connector/core";
import { afterEach, describe, expect, it } from "vitest";
import * as z from "zod";
import {
  type RegisterToolsOptions,
  registerToolGroups,
  registerTools,
  TOOL_ERROR_META_KEY,
  type ToolDefinition,
  ToolServer,
  toolErrorResult,
  toolGroup,
} from "../src/index.js";

// The behaviour both servers rely on is tested through them (read-server/test/framework,
// write-bridge/test/bridge); these cover the options that differ between the two.

const hints = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

const echo: ToolDefinition<{ prefix: string }> = {
  name: "test_echo",
  title: "Echo (test)",
  description: "Returns its input with the context's prefix. Test-only.",
  inputSchema: z.strictObject({ text: z.string() }),
  outputSchema: z.strictObject({ text: z.string() }),
  annotations: hints,
  async handler(context, input: { text: string }) {
    return { text: `${context.prefix}${input.text}` };
  },
};

const options = (
  more: Partial<RegisterToolsOptions<{ prefix: string }, ToolDefinition<{ prefix: string }>>> = {},
): RegisterToolsOptions<{ prefix: string }, ToolDefinition<{ prefix: string }>> => ({
  kind: "test",
  context: { prefix: "> " },
  toolError: (error) => ({
    isError: true,
    content: [{ type: "text", text: error instanceof ConnectorError ? error.toString() : "internal" }],
  }),
  internalErrorText: "internal",
  log: () => {},
  ...more,
});

let client: Client | undefined;
afterEach(async () => {
  await client?.close();
  client = undefined;
});

async function connected(server: ToolServer): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  client = new Client({ name: "test", version: "0.0.0" });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  return client;
}

describe("registerTools", () => {
  it("answers a call with structuredContent and the same JSON as text", async () => {
    const server = new ToolServer({ name: "test", version: "0.0.0" });
    registerTools(server, [echo], options());
    const result = (await (
      await connected(server)
    ).callTool({
      name: "test_echo",
      arguments: { text: "hi" },
    })) as CallToolResult;
    expect(result.structuredContent).toEqual({ text: "> hi" });
    expect(result.content).toEqual([{ type: "text", text: JSON.stringify({ text: "> hi" }) }]);
  });

  it("repeats the title inside the annotations only when asked", async () => {
    for (const titleInAnnotations of [false, true]) {
      const server = new ToolServer({ name: "test", version: "0.0.0" });
      registerTools(server, [echo], options({ titleInAnnotations }));
      const { tools } = await (await connected(server)).listTools();
      expect(tools[0]?.annotations).toEqual(titleInAnnotations ? { title: "Echo (test)", ...hints } : hints);
      await client?.close();
    }
  });

  it("turns a rejected beforeCall into the server's tool error without running the handler", async () => {
    const server = new ToolServer({ name: "test", version: "0.0.0" });
    let ran = false;
    const handler = async () => {
      ran = true;
      return { text: "" };
    };
    registerTools(server, [{ ...echo, handler }], {
      ...options(),
      beforeCall: () => Promise.reject(new ConnectorError("environment_unavailable", "not checked yet")),
    });
    const result = (await (
      await connected(server)
    ).callTool({
      name: "test_echo",
      arguments: { text: "hi" },
    })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(result.content).toEqual([{ type: "text", text: "environment_unavailable: not checked yet" }]);
    expect(ran).toBe(false);
  });

  it("never sends structuredContent on an error, even when a server's toolError adds it (ADR 0021)", async () => {
    const server = new ToolServer({ name: "test", version: "0.0.0" });
    const failing = {
      ...echo,
      async handler(): Promise<never> {
        throw new ConnectorError("thread_not_found", "no such thread");
      },
    };
    registerTools(server, [failing], {
      ...options(),
      toolError: (error) => ({
        ...toolErrorResult({ code: "thread_not_found", message: (error as Error).message }),
        structuredContent: { error: "does not match the output schema" },
      }),
    });
    const connectedClient = await connected(server);
    // Listing first: callTool then checks any structuredContent against the output schema.
    await connectedClient.listTools();
    const result = await connectedClient.callTool({ name: "test_echo", arguments: { text: "hi" } });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toBeUndefined();
    expect(result.content).toEqual([{ type: "text", text: "thread_not_found: no such thread" }]);
    expect(result._meta?.[TOOL_ERROR_META_KEY]).toEqual({
      code: "thread_not_found",
      message: "no such thread",
    });
  });

  it("answers a result that fails its own output schema with the internal text, as fields too", async () => {
    const server = new ToolServer({ name: "test", version: "0.0.0" });
    const broken = { ...echo, handler: async () => ({ text: 42 }) };
    registerTools(server, [broken], options({ internalErrorText: "internal: failed to query T3" }));
    const connectedClient = await connected(server);
    await connectedClient.listTools();
    const result = await connectedClient.callTool({ name: "test_echo", arguments: { text: "hi" } });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toBeUndefined();
    expect(result.content).toEqual([{ type: "text", text: "internal: failed to query T3" }]);
    expect(result._meta?.[TOOL_ERROR_META_KEY]).toEqual({ code: "internal", message: "failed to query T3" });
  });

  it("refuses a server's own rule and a loose input, naming the server's kind", () => {
    const refuse = () => {
      throw new Error("Test tool test_echo breaks the rule");
    };
    expect(() =>
      registerTools(new ToolServer({ name: "t", version: "0" }), [echo], options({ check: refuse })),
    ).toThrow(/breaks the rule/);
    const loose = { ...echo, inputSchema: z.object({ text: z.string() }) };
    expect(() => registerTools(new ToolServer({ name: "t", version: "0" }), [loose], options())).toThrow(
      /^Test tool test_echo needs strict objects .*: input$/,
    );
  });
});

describe("progress from a tool handler", () => {
  const reporting: ToolDefinition<{ prefix: string }> = {
    ...echo,
    name: "test_progress",
    async handler(context, input: { text: string }, extra) {
      await extra.progress("first step");
      await extra.progress("second step");
      return { text: `${context.prefix}${input.text}` };
    },
  };

  it("reaches a client that asked for it, with a progress value that grows and the handler's words", async () => {
    const server = new ToolServer({ name: "test", version: "0.0.0" });
    registerTools(server, [reporting], options());
    const reports: { progress: number; message?: string }[] = [];
    const result = await (await connected(server)).callTool(
      { name: "test_progress", arguments: { text: "x" } },
      undefined,
      { onprogress: (report) => reports.push({ progress: report.progress, message: report.message }) },
    );
    expect(result.isError).toBeFalsy();
    expect(reports).toEqual([
      { progress: 1, message: "first step" },
      { progress: 2, message: "second step" },
    ]);
  });

  it("sends nothing when the request carried no progress token", async () => {
    const server = new ToolServer({ name: "test", version: "0.0.0" });
    registerTools(server, [reporting], options());
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    client = new Client({ name: "test", version: "0.0.0" });
    await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
    // Every message the server sends, as it arrives on the client's side of the wire.
    const methods: string[] = [];
    const deliver = clientSide.onmessage;
    clientSide.onmessage = (message, extra) => {
      if ("method" in message) methods.push(message.method);
      deliver?.(message, extra);
    };
    const result = await client.callTool({ name: "test_progress", arguments: { text: "x" } });
    expect(result.isError).toBeFalsy();
    expect(methods).not.toContain("notifications/progress");
  });
});

describe("registerTools for both eras (ADR 0046)", () => {
  /** Answers who called it, as the handler sees it. */
  const whoCalls: ToolDefinition<{ prefix: string }> = {
    ...echo,
    name: "test_who",
    outputSchema: z.strictObject({ era: z.string(), client: z.string(), urlElicitation: z.boolean() }),
    async handler(_context, _input, extra) {
      return {
        era: extra.client.era,
        client: extra.client.info?.name ?? "",
        urlElicitation: extra.client.urlElicitation,
      };
    },
  };
  const served: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const close of served.splice(0)) await close();
  });

  /** A v2 client pinned to 2026-07-28, and the server served as the CLIs serve it (serveStdio). */
  async function modern(): Promise<ModernClient> {
    const [clientSide, serverSide] = ModernMemory.createLinkedPair();
    const handle = serveStdio(
      () => {
        const server = new ToolServer({ name: "test", version: "0.0.0" });
        registerTools(server, [echo, whoCalls], options());
        return server;
      },
      { transport: serverSide },
    );
    const modernClient = new ModernClient(
      { name: "modern-test", version: "2.0.0" },
      { versionNegotiation: { mode: { pin: "2026-07-28" } }, capabilities: { elicitation: { url: {} } } },
    );
    modernClient.setRequestHandler("elicitation/create", async () => ({ action: "decline" }));
    await modernClient.connect(clientSide);
    served.push(async () => {
      await modernClient.close();
      await handle.close();
    });
    return modernClient;
  }

  it("tells a handler the caller's era and identity: from initialize (2025) or the request's envelope (2026)", async () => {
    const legacyServer = new ToolServer({ name: "test", version: "0.0.0" });
    registerTools(legacyServer, [whoCalls], options());
    const legacy = await (await connected(legacyServer)).callTool({
      name: "test_who",
      arguments: { text: "x" },
    });
    expect(legacy.structuredContent).toEqual({ era: "legacy", client: "test", urlElicitation: false });

    const answer = await (await modern()).callTool({ name: "test_who", arguments: { text: "x" } });
    expect(answer.structuredContent).toEqual({ era: "modern", client: "modern-test", urlElicitation: true });
  });

  it("answers arguments that are not an object, and a __proto__ key, as invalid_input tool errors in 2026 too", async () => {
    const client2026 = await modern();
    for (const args of [null, ["text"], JSON.parse('{"text":"hi","__proto__":{"x":1}}')]) {
      const result = await client2026.callTool({ name: "test_echo", arguments: args });
      expect(result.isError, JSON.stringify(args)).toBe(true);
      expect(result._meta?.[TOOL_ERROR_META_KEY]).toMatchObject({ code: "invalid_input" });
    }
  });
});

describe("registerToolGroups", () => {
  const shout: ToolDefinition<{ prefix: string }> = { ...echo, name: "test_shout", title: "Shout (test)" };

  it("lists each group's tools in order and sends a call to the group that names it, with its own context", async () => {
    const server = new ToolServer({ name: "test", version: "0.0.0" });
    const first = toolGroup([echo], options());
    const second = toolGroup([shout], options({ context: { prefix: "! " } }));
    registerToolGroups(server, [first, second]);
    const connection = await connected(server);
    expect((await connection.listTools()).tools.map((tool) => tool.name)).toEqual([
      "test_echo",
      "test_shout",
    ]);
    const echoed = (await connection.callTool({
      name: "test_echo",
      arguments: { text: "a" },
    })) as CallToolResult;
    const shouted = (await connection.callTool({
      name: "test_shout",
      arguments: { text: "b" },
    })) as CallToolResult;
    expect(echoed.structuredContent).toEqual({ text: "> a" });
    expect(shouted.structuredContent).toEqual({ text: "! b" });
  });

  it("answers a call for a name a group keeps unlisted from that group", async () => {
    const server = new ToolServer({ name: "test", version: "0.0.0" });
    const refusing = {
      names: ["test_hidden"],
      list: () => [],
      call: async () => toolErrorResult({ code: "write_not_granted", message: "not for this session" }),
    };
    registerToolGroups(server, [toolGroup([echo], options()), refusing]);
    const connection = await connected(server);
    expect((await connection.listTools()).tools.map((tool) => tool.name)).toEqual(["test_echo"]);
    const refused = (await connection.callTool({ name: "test_hidden", arguments: {} })) as CallToolResult;
    expect(refused.isError).toBe(true);
    expect(refused.content).toEqual([{ type: "text", text: "write_not_granted: not for this session" }]);
  });

  it("refuses two groups that name the same tool", () => {
    const server = new ToolServer({ name: "test", version: "0.0.0" });
    expect(() =>
      registerToolGroups(server, [toolGroup([echo], options()), toolGroup([echo], options())]),
    ).toThrow("Tool test_echo is served by two groups");
  });
});
