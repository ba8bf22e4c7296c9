import { readToolDefinitions } from "@t3-connector/read-server";
import { type Listing, listBridgeServer, listReadServer } from "@t3-connector/test-support/tool-listing";
import { afterAll, describe, expect, it } from "vitest";

// Function-calling converters (OpenAI's among them) reject a recursive `$ref` and `propertyNames`
// in a tool's parameters. Every input schema both servers list must be free of them. (Every other
// change to what `tools/list` says is caught by the snapshots: tool-snapshots.test.ts.)

const listings: Listing[] = [];
afterAll(async () => {
  for (const listing of listings) await listing.close();
});

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

describe("tool input schemas of both servers", () => {
  it("list every read tool with an input schema free of $ref and propertyNames, and send instructions", async () => {
    const listing = await listReadServer();
    listings.push(listing);
    const { tools, instructions } = listing;
    expect(tools).toHaveLength(readToolDefinitions.length);
    for (const tool of tools) {
      expect(forbiddenKeys(tool.inputSchema), tool.name).toEqual([]);
      expect(tool.inputSchema.type).toBe("object");
    }
    expect(instructions?.trim().length ?? 0).toBeGreaterThan(100);
  });

  it("list every bridge tool with an input schema free of $ref and propertyNames, and send instructions", async () => {
    const listing = await listBridgeServer();
    listings.push(listing);
    const { tools, instructions } = listing;
    expect(tools.length).toBeGreaterThan(40);
    for (const tool of tools) {
      expect(forbiddenKeys(tool.inputSchema), tool.name).toEqual([]);
      expect(tool.inputSchema.type).toBe("object");
    }
    expect(instructions?.trim().length ?? 0).toBeGreaterThan(100);
  });
});
