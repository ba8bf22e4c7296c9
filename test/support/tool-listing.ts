import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { parseReadConfig } from "@t3-connector/core/config";
import type { ToolServer } from "@t3-connector/mcp-tools";
import { createReadServer, readToolDefinitions } from "@t3-connector/read-server";
import { createBridgeServer } from "@t3-connector/write-bridge";
import { createProcessReadContext } from "../../packages/read-server/src/read-context.js";
import { createRelayClient } from "../../packages/write-bridge/src/relay-client.js";

/** What a client sees of one server before calling anything. */
export interface Listing {
  tools: Tool[];
  instructions: string | undefined;
  close(): Promise<void>;
}

/** The read server's `tools/list` as the SDK client reads it; no environment is needed to list. */
export async function listReadServer(): Promise<Listing> {
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
  const listing = await listed(createReadServer(readToolDefinitions, context));
  return {
    ...listing,
    async close() {
      await listing.close();
      await context.registry.close();
    },
  };
}

/** The write bridge's `tools/list`; no gate is needed to list. */
export async function listBridgeServer(): Promise<Listing> {
  const relay = createRelayClient({ port: 9, stateDir: "/nonexistent" });
  return listed(createBridgeServer({ relay, log: () => undefined }));
}

async function listed(server: ToolServer): Promise<Listing> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "tool-listing", version: "0.0.0" });
  await client.connect(clientSide);
  const { tools } = await client.listTools();
  return { tools, instructions: client.getInstructions(), close: () => client.close() };
}
