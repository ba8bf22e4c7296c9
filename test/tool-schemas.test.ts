import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { parseReadConfig } from "@t3-connector/core/config";
import { createReadServer, readToolDefinitions } from "@t3-connector/read-server";
import { createBridgeServer } from "@t3-connector/write-bridge";
import { afterAll, describe, expect, it } from "vitest";
import { createProcessReadContext } from "../packages/read-server/src/read-context.js";
import { createRelayClient } from "../packages/write-bridge/src/relay-client.js";

// Function-calling converters (OpenAI's among them) reject a recursive `$ref` and `propertyNames`
// in a tool's parameters. Every input schema both servers list must be free of them.

const closers: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const close of closers) await close();
});

async function listed(server: McpServer) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "schema-check", version: "0.0.0" });
  await client.connect(clientSide);
  closers.push(() => client.close());
  return { client, ...(await client.listTools()), instructions: client.getInstructions() };
}

function forbiddenKeys(node: unknown, at = "inputSchema"): string[] {
  if (Array.isArray(node)) return node.flatMap((item, index) => forbiddenKeys(item, `${at}[${index}]`));
  if (typeof node !== "object" || node === null) return [];
  return Object.entries(node).flatMap(([key, value]) => [
    ...(key === "$ref" || key === "propertyNames" || key === "definitions" || key === "$defs"
      ? [`${at}.${key}`]
      : []),
    ...forbiddenKeys(value, `${at}.${key}`),
  ]);
}

function readServer() {
  // Listing needs no environment; the config only has to be valid.
  const config = parseReadConfig(
    {
      environments: {
        local: {
          environmentId: "env-local",
          url: "http://127.0.0.1:9",
          tokenFile: "/nonexistent/local.read.token",
          allowedProjects: ["p"],
        },
      },
    },
    { path: "inline" },
  );
  const context = createProcessReadContext({ config, log: () => undefined });
  closers.push(() => context.registry.close());
  return createReadServer(readToolDefinitions, context);
}

describe("tool input schemas of both servers", () => {
  it("list every read tool with an input schema free of $ref and propertyNames, and send instructions", async () => {
    const { tools, instructions } = await listed(readServer());
    expect(tools).toHaveLength(readToolDefinitions.length);
    for (const tool of tools) {
      expect(forbiddenKeys(tool.inputSchema), tool.name).toEqual([]);
      expect(tool.inputSchema.type).toBe("object");
    }
    expect(instructions?.trim().length ?? 0).toBeGreaterThan(100);
  });

  it("list every bridge tool with an input schema free of $ref and propertyNames, and send instructions", async () => {
    const relay = createRelayClient({ port: 9, stateDir: "/nonexistent" });
    const { tools, instructions } = await listed(createBridgeServer({ relay, log: () => undefined }));
    expect(tools.length).toBeGreaterThan(40);
    for (const tool of tools) {
      expect(forbiddenKeys(tool.inputSchema), tool.name).toEqual([]);
      expect(tool.inputSchema.type).toBe("object");
    }
    expect(instructions?.trim().length ?? 0).toBeGreaterThan(100);
  });
});
