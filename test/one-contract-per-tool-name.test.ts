/**
 * The write bridge's leased reads answer under five of the read server's tool names; a client must
 * meet one contract per name whichever server it called (ADR 0053). The output schema is the very
 * same object, the input the read tool's with `leaseId` added (and `includeArchived` on the
 * bridge's t3_threads), as the definitions hold them, as each server lists them, and as the
 * committed snapshots record them.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { SHARED_READ_CONTRACTS } from "@t3-connector/mcp-tools/read-contracts";
import { readToolDefinitions } from "@t3-connector/read-server";
import { type Listing, listBridgeServer, listReadServer } from "@t3-connector/test-support/tool-listing";
import { BRIDGE_TOOLS } from "@t3-connector/write-bridge";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const SHARED = Object.keys(SHARED_READ_CONTRACTS) as (keyof typeof SHARED_READ_CONTRACTS)[];
/** Keys only the bridge's tool has, beyond the read tool's. */
const BRIDGE_ONLY: Record<string, string[]> = { t3_threads: ["includeArchived"] };

const byName = <T extends { name: string }>(tools: readonly T[], name: string): T => {
  const tool = tools.find((candidate) => candidate.name === name);
  if (tool === undefined) throw new Error(`no tool ${name}`);
  return tool;
};

describe("one contract per tool name", () => {
  it.each(SHARED)("%s: both servers' definitions hold the same output schema object", (name) => {
    const read = byName(readToolDefinitions, name);
    const bridge = byName(BRIDGE_TOOLS, name);
    expect(read.outputSchema).toBe(SHARED_READ_CONTRACTS[name].outputSchema);
    expect(bridge.outputSchema).toBe(read.outputSchema);
    expect(read.inputSchema).toBe(SHARED_READ_CONTRACTS[name].inputSchema);
  });

  describe("as each server lists them", () => {
    let read: Listing;
    let bridge: Listing;
    beforeAll(async () => {
      read = await listReadServer();
      bridge = await listBridgeServer();
    });
    afterAll(async () => {
      await read?.close();
      await bridge?.close();
    });

    it.each(SHARED)("%s: the same output schema, and the read input plus leaseId", (name) => {
      const readTool = byName(read.tools, name);
      const bridgeTool = byName(bridge.tools, name);
      expect(bridgeTool.outputSchema).toEqual(readTool.outputSchema);
      const readInput = readTool.inputSchema as Tool["inputSchema"];
      const bridgeInput = bridgeTool.inputSchema as Tool["inputSchema"];
      const { leaseId, ...rest } = bridgeInput.properties ?? {};
      expect(leaseId).toMatchObject({ type: "string", minLength: 1 });
      for (const key of BRIDGE_ONLY[name] ?? []) delete rest[key];
      expect(rest).toEqual(readInput.properties);
      expect([...(bridgeInput.required ?? [])].sort()).toEqual(
        [...(readInput.required ?? []), "leaseId"].sort(),
      );
      expect(bridgeInput.additionalProperties).toBe(false);
    });
  });

  it("is what the committed snapshots record for t3_thread", () => {
    const snapshot = (server: string) =>
      JSON.parse(
        readFileSync(
          fileURLToPath(new URL(`./__toolsnaps__/${server}/t3_thread.json`, import.meta.url)),
          "utf8",
        ),
      ) as Tool;
    expect(snapshot("bridge").outputSchema).toEqual(snapshot("read").outputSchema);
  });
});
