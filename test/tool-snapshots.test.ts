/**
 * What both MCP servers tell a model about their tools — name, title, description, input and
 * output schemas, annotations — kept as one committed file per tool in `__toolsnaps__/<server>/`
 * (ADR 0021). Any change fails here until it is made on purpose:
 *
 *   pnpm toolsnaps:update   (UPDATE_TOOLSNAPS=1 pnpm exec vitest run test/tool-snapshots.test.ts)
 *
 * then review and commit the changed files with the change that caused them. The two servers have
 * a folder each because the bridge's leased reads share names with the read server's tools.
 */
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { type Listing, listBridgeServer, listReadServer } from "@t3-connector/test-support/tool-listing";
import { afterAll, describe, expect, it } from "vitest";

const SNAPSHOTS = fileURLToPath(new URL("./__toolsnaps__/", import.meta.url));
const UPDATE = process.env.UPDATE_TOOLSNAPS === "1";
const UPDATE_COMMAND = "pnpm toolsnaps:update";

const listings: Listing[] = [];
afterAll(async () => {
  for (const listing of listings) await listing.close();
});

/** The fields named first, in a fixed order; anything a later SDK or server adds follows them. */
function snapshotOf(tool: Tool): string {
  const { name, title, description, inputSchema, outputSchema, annotations, ...rest } = tool;
  const fields = { name, title, description, inputSchema, outputSchema, annotations, ...rest };
  return `${JSON.stringify(fields, null, 2)}\n`;
}

async function committed(folder: string): Promise<Map<string, string>> {
  const files = await readdir(folder).catch(() => [] as string[]);
  const texts = new Map<string, string>();
  for (const file of files.filter((name) => name.endsWith(".json")).sort()) {
    texts.set(file.slice(0, -".json".length), await readFile(`${folder}${file}`, "utf8"));
  }
  return texts;
}

async function update(folder: string, tools: readonly Tool[], old: Map<string, string>): Promise<void> {
  await mkdir(folder, { recursive: true });
  for (const tool of tools) await writeFile(`${folder}${tool.name}.json`, snapshotOf(tool));
  const listed = new Set(tools.map((tool) => tool.name));
  for (const name of old.keys()) if (!listed.has(name)) await rm(`${folder}${name}.json`);
}

describe.each([
  ["read", listReadServer],
  ["bridge", listBridgeServer],
])("the %s server's tools/list", (server, list) => {
  it(`matches __toolsnaps__/${server}/, one file per tool, none missing and none extra`, async () => {
    const listing = await list();
    listings.push(listing);
    const folder = `${SNAPSHOTS}${server}/`;
    const old = await committed(folder);
    if (UPDATE) {
      await update(folder, listing.tools, old);
      return;
    }
    const listed = listing.tools.map((tool) => tool.name);
    const missing = listed.filter((name) => !old.has(name));
    const extra = [...old.keys()].filter((name) => !listed.includes(name));
    expect.soft(missing, `tools with no snapshot file; run ${UPDATE_COMMAND}`).toEqual([]);
    expect.soft(extra, `snapshot files of tools no longer listed; run ${UPDATE_COMMAND}`).toEqual([]);
    for (const tool of listing.tools) {
      const expected = old.get(tool.name);
      if (expected === undefined) continue;
      expect
        .soft(snapshotOf(tool), `${server}/${tool.name}.json differs; if on purpose, run ${UPDATE_COMMAND}`)
        .toBe(expected);
    }
  });
});
