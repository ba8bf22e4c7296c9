import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll } from "vitest";
import { type BridgeServerOptions, createBridgeServer } from "../../src/index.js";
import { createRelayClient } from "../../src/relay-client.js";
import { type FakeGate, startFakeGate } from "./fake-gate.js";

export interface BridgeSession {
  client: Client;
  logs: string[];
  call(name: string, args: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

/** The bridge server over an in-memory MCP transport, relaying to `port` / `stateDir`. */
export async function connectBridge(
  target: { port: number; stateDir: string },
  options: Pick<BridgeServerOptions, "timers" | "now"> = {},
): Promise<BridgeSession> {
  const logs: string[] = [];
  const server = createBridgeServer({
    relay: createRelayClient({ port: target.port, stateDir: target.stateDir, timeoutMs: 10_000 }),
    log: (line) => logs.push(line),
    ...options,
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "bridge-test", version: "0.0.0" });
  await server.connect(serverSide);
  await client.connect(clientSide);
  return {
    client,
    logs,
    call: (name, args) => client.callTool({ name, arguments: args }) as Promise<CallToolResult>,
    async close() {
      await client.close();
      await server.close();
    },
  };
}

export type Body = Record<string, unknown>;

/** A tool result's structured content, read as the JSON object every bridge tool answers. */
export const structured = (result: { structuredContent?: unknown }) => result.structuredContent as Body;

export function textOf(result: CallToolResult): string {
  const first = result.content[0];
  return first?.type === "text" ? first.text : "";
}

/**
 * Registers the file's hooks: one stand-in gate (with its capability file) and one bridge session
 * for every test in the file, closed after them. `ready` hands both to the file's own variables.
 */
export function useBridgeOverFakeGate(ready: (gate: FakeGate, bridge: BridgeSession) => void): void {
  let gate: FakeGate | undefined;
  let bridge: BridgeSession | undefined;
  beforeAll(async () => {
    gate = await startFakeGate();
    await gate.writeCapability();
    bridge = await connectBridge(gate);
    ready(gate, bridge);
  });
  afterAll(async () => {
    await bridge?.close();
    await gate?.close();
  });
}
