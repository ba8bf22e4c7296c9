/**
 * The write bridge's leased reads are the read server's own tools under five names; a client must
 * meet one tool per name whichever server it called (ADR 0053, ADR 0072). The title is the same,
 * the output schema the very same object, the input the read tool's with `leaseId` added, and the
 * answer built by the same code (mcp-tools' read-answers): as the definitions hold them, as each
 * server lists them, and as the committed snapshots record them.
 */
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { SHARED_READ_TOOLS } from "@t3-connector/mcp-tools/read-answers";
import { SHARED_READ_CONTRACTS } from "@t3-connector/mcp-tools/read-contracts";
import { readToolDefinitions } from "@t3-connector/read-server";
import { type Listing, listBridgeServer, listReadServer } from "@t3-connector/test-support/tool-listing";
import { BRIDGE_TOOLS } from "@t3-connector/write-bridge";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const SHARED = Object.keys(SHARED_READ_CONTRACTS) as (keyof typeof SHARED_READ_CONTRACTS)[];

const byName = <T extends { name: string }>(tools: readonly T[], name: string): T => {
  const tool = tools.find((candidate) => candidate.name === name);
  if (tool === undefined) throw new Error(`no tool ${name}`);
  return tool;
};

describe("one contract per tool name", () => {
  it("shares every read contract as one shared tool", () => {
    expect(Object.keys(SHARED_READ_TOOLS).sort()).toEqual([...SHARED].sort());
  });

  it.each(SHARED)("%s: both servers' definitions hold the same title and output schema object", (name) => {
    const read = byName(readToolDefinitions, name);
    const bridge = byName(BRIDGE_TOOLS, name);
    const shared = SHARED_READ_TOOLS[name];
    expect(read.outputSchema).toBe(SHARED_READ_CONTRACTS[name].outputSchema);
    expect(bridge.outputSchema).toBe(read.outputSchema);
    expect(read.inputSchema).toBe(SHARED_READ_CONTRACTS[name].inputSchema);
    expect(shared.inputSchema).toBe(read.inputSchema);
    expect(shared.outputSchema).toBe(read.outputSchema);
    expect(read.title).toBe(shared.title);
    expect(bridge.title).toBe(read.title);
    // The bridge's input is the read input's keys, in order, then leaseId: nothing else.
    expect(Object.keys(bridge.inputSchema.shape)).toEqual([
      ...Object.keys(read.inputSchema.shape),
      "leaseId",
    ]);
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

    it.each(SHARED)("%s: the same title and output schema, and the read input plus leaseId", (name) => {
      const readTool = byName(read.tools, name);
      const bridgeTool = byName(bridge.tools, name);
      expect(bridgeTool.title).toBe(readTool.title);
      expect(bridgeTool.outputSchema).toEqual(readTool.outputSchema);
      const readInput = readTool.inputSchema as Tool["inputSchema"];
      const bridgeInput = bridgeTool.inputSchema as Tool["inputSchema"];
      const { leaseId, ...rest } = bridgeInput.properties ?? {};
      expect(leaseId).toMatchObject({ type: "string", minLength: 1 });
      expect(rest).toEqual(readInput.properties);
      expect([...(bridgeInput.required ?? [])].sort()).toEqual(
        [...(readInput.required ?? []), "leaseId"].sort(),
      );
      expect(bridgeInput.additionalProperties).toBe(false);
    });
  });

  it.each(SHARED)("%s: is what the committed snapshots record", (name) => {
    const snapshot = (server: string) =>
      JSON.parse(
        readFileSync(
          fileURLToPath(new URL(`./__toolsnaps__/${server}/${name}.json`, import.meta.url)),
          "utf8",
        ),
      ) as Tool;
    const readSnap = snapshot("read");
    const bridgeSnap = snapshot("bridge");
    expect(bridgeSnap.title).toBe(readSnap.title);
    expect(bridgeSnap.outputSchema).toEqual(readSnap.outputSchema);
    const { leaseId: _leaseId, ...bridgeInput } = bridgeSnap.inputSchema.properties ?? {};
    expect(bridgeInput).toEqual(readSnap.inputSchema.properties);
  });

  it("leaves the bridge's tools no paging or answer building of their own", () => {
    // What the read answers are built from: a bridge tool that used one would be a second copy.
    const builders = [
      "paginate",
      "paginatePresorted",
      "threadSummary",
      "threadRead",
      "recentMessages",
      "filterThreadList",
      "attentionThreads",
      "matchesSearch",
    ];
    const folder = new URL("../packages/write-bridge/src/tools/", import.meta.url);
    const found = readdirSync(folder)
      .filter((file) => file.endsWith(".ts"))
      .flatMap((file) => {
        const text = readFileSync(new URL(file, folder), "utf8");
        return builders
          .filter((name) => new RegExp(`\\b${name}\\b`).test(text))
          .map((name) => `${file}: ${name}`);
      });
    expect(found).toEqual([]);
  });
});
