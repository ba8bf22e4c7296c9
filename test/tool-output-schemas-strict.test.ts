import { Ajv } from "ajv";
import addFormats from "ajv-formats";
import { afterAll, describe, expect, it } from "vitest";
import { type Listing, listBridgeServer, listReadServer } from "./support/tool-listing.js";

// The MCP Inspector (and other clients) compile each tool's output schema with Ajv in strict mode,
// which logs a warning for every union `type: [...]` and every keyword without its type. Both
// servers' output and input schemas must compile under strict mode without a single warning.

const listings: Listing[] = [];
afterAll(async () => {
  for (const listing of listings) await listing.close();
});

function strictWarnings(schemas: Array<{ name: string; schema: unknown }>): string[] {
  const warnings: string[] = [];
  const ajv = new Ajv({
    strict: "log",
    logger: { log: () => {}, warn: (...args: unknown[]) => warnings.push(args.join(" ")), error: () => {} },
  });
  // As clients set it up: the standard formats (uri, date-time, …) known.
  addFormats.default(ajv);
  for (const { name, schema } of schemas) {
    try {
      const { $schema: _ignored, ...body } = schema as Record<string, unknown>;
      ajv.compile(body);
    } catch (error) {
      warnings.push(`${name}: ${(error as Error).message}`);
    }
  }
  return warnings;
}

describe("tool schemas under Ajv's strict mode", () => {
  it.each([
    ["read", listReadServer],
    ["bridge", listBridgeServer],
  ])("the %s server's schemas compile without a warning", async (_server, list) => {
    const listing = await list();
    listings.push(listing);
    const schemas = listing.tools.flatMap((tool) => [
      { name: `${tool.name} input`, schema: tool.inputSchema },
      ...(tool.outputSchema === undefined
        ? []
        : [{ name: `${tool.name} output`, schema: tool.outputSchema }]),
    ]);
    expect(schemas.length).toBeGreaterThan(10);
    expect(strictWarnings(schemas)).toEqual([]);
  });
});
