/**
 * The read tools' catalog (src/read-tool-catalog.ts) is what a spawned stdio `serve` serves: its
 * listing comes from tables written ahead of time and each tool's module is loaded at its first
 * call (docs/adr/0060). Nothing a client sees may differ from a server given the tools' own
 * definitions: the same `tools/list` to the byte, the same answers and the same input errors.
 */
import { afterEach, describe, expect, it } from "vitest";
import { type ReadToolCatalog, readToolCatalog } from "../../src/read-tool-catalog.js";
import { READ_TOOL_NAMES } from "../../src/read-tool-list.js";
import { readToolDefinitions } from "../../src/tools/index.js";
import { READ_TOOL_LOADERS } from "../../src/tools/loaders.js";
import { type Connected, connect } from "./harness.js";

const opened: Connected[] = [];
afterEach(async () => {
  for (const connected of opened.splice(0)) await connected.close();
});

async function served(tools: Parameters<typeof connect>[0]): Promise<Connected> {
  const connected = await connect(tools);
  opened.push(connected);
  return connected;
}

/** The catalog, counting the loads of each tool. */
function countingCatalog(loads: string[], failFirst?: string): ReadToolCatalog {
  const catalog = readToolCatalog();
  let failed = false;
  return {
    listing: catalog.listing,
    async load(name) {
      loads.push(name);
      if (name === failFirst && !failed) {
        failed = true;
        throw new Error(`${name}'s module could not be read`);
      }
      return catalog.load(name);
    },
  };
}

describe("the read tools' catalog", () => {
  it("loads, for each tool of the contract, the definition tools/index.ts lists, in its order", async () => {
    expect(Object.keys(READ_TOOL_LOADERS)).toEqual([...READ_TOOL_NAMES]);
    expect(readToolDefinitions.map((definition) => definition.name)).toEqual([...READ_TOOL_NAMES]);
    for (const definition of readToolDefinitions) {
      expect(await readToolCatalog().load(definition.name)).toBe(definition);
    }
    await expect(readToolCatalog().load("t3_nothing")).rejects.toThrow("no read tool t3_nothing");
  });

  it("lists exactly what a server of the tools' own definitions lists, byte for byte", async () => {
    const fromDefinitions = await (await served(readToolDefinitions)).client.listTools();
    const loads: string[] = [];
    const fromCatalog = await (await served(countingCatalog(loads))).client.listTools();
    expect(JSON.stringify(fromCatalog)).toBe(JSON.stringify(fromDefinitions));
    expect(fromCatalog.tools.map((tool) => tool.name)).toEqual([...READ_TOOL_NAMES]);
    // Listing loaded no tool.
    expect(loads).toEqual([]);
  });

  it("loads a tool at its first call only, and answers as the tool's own definition does", async () => {
    const eager = await served(readToolDefinitions);
    const loads: string[] = [];
    const lazy = await served(countingCatalog(loads));
    const calls = [
      { name: "t3_ambientes", arguments: { check: false } },
      { name: "t3_ambientes", arguments: { check: "no" } },
      { name: "t3_projetos", arguments: { environment: "nowhere" } },
      { name: "t3_ambientes", arguments: { check: false, bogus: 1 } },
    ];
    const answers = [];
    for (const call of calls) {
      const expected = await eager.client.callTool(call);
      expect(JSON.stringify(await lazy.client.callTool(call))).toBe(JSON.stringify(expected));
      answers.push(expected);
    }
    // An answer, a refused input, a tool's own error and an unknown key: each path compared.
    expect(answers.map((answer) => answer.isError === true)).toEqual([false, true, true, true]);
    expect(loads).toEqual(["t3_ambientes", "t3_projetos"]);
  });

  it("fails the call whose tool could not be loaded, and loads it again at the next call", async () => {
    const loads: string[] = [];
    const lazy = await served(countingCatalog(loads, "t3_ambientes"));
    await expect(lazy.client.callTool({ name: "t3_ambientes", arguments: {} })).rejects.toThrow(
      "could not be read",
    );
    const answer = await lazy.client.callTool({ name: "t3_ambientes", arguments: { check: false } });
    expect(answer.isError).not.toBe(true);
    expect(loads).toEqual(["t3_ambientes", "t3_ambientes"]);
  });
});
