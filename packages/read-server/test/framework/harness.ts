import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { ToolServer } from "@t3-connector/mcp-tools";
import { createProcessReadContext } from "../../src/read-context.js";
import type { ReadTools } from "../../src/read-tool-catalog.js";
import { createReadServer } from "../../src/server.js";

export interface Connected {
  client: Client;
  server: ToolServer;
  logs: string[];
  close(): Promise<void>;
}

/** A real SDK client and our server, joined by the SDK's in-memory linked transport pair. */
export async function connect(definitions: ReadTools): Promise<Connected> {
  const logs: string[] = [];
  const context = createProcessReadContext({
    config: { path: "(test)", default: "", environments: [] },
    log: (line) => logs.push(line),
  });
  const server = createReadServer(definitions, context);
  const client = new Client({ name: "framework-test", version: "0.0.0" });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  await client.connect(clientTransport);
  return {
    client,
    server,
    logs,
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

/** A promise with its resolver, to wait on an event instead of sleeping. */
export function deferred<T = void>(): { promise: Promise<T>; resolve(value: T): void } {
  let resolve: (value: T) => void = () => {};
  const promise = new Promise<T>((settle) => {
    resolve = settle;
  });
  return { promise, resolve };
}
