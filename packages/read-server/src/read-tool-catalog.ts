import type { Tool } from "@modelcontextprotocol/server";
import type { ReadToolDefinition } from "./read-tool.js";
import { READ_TOOL_CARDS } from "./read-tool-cards.generated.js";
import { READ_TOOL_JSON_SCHEMAS } from "./read-tool-json-schemas.generated.js";
import { READ_TOOL_NAMES } from "./read-tool-list.js";
import { READ_TOOL_LOADERS } from "./tools/loaders.js";

/**
 * The read tools as a spawned stdio `serve` serves them: listed from the tables written ahead of
 * time (the tools' words and hints in read-tool-cards.generated.ts, their JSON Schemas in
 * read-tool-json-schemas.generated.ts), each tool's module loaded when it is first called. Building
 * every tool's zod schemas and loading every answer's modules before the first answer was most of
 * what `serve` added above the SDK's own start (docs/adr/0060). The tables cannot drift:
 * test/framework/read-tool-json-schemas.test.ts fails when either differs from what the tools'
 * definitions give now, and test/framework/read-tool-catalog.test.ts when this listing differs
 * from theirs by one byte.
 */
export interface ReadToolCatalog {
  /** The `tools/list` entries, as the tools' own definitions list them, in the contract's order. */
  readonly listing: readonly Tool[];
  /** The named tool's definition, its module loaded on the first call. */
  load(name: string): Promise<ReadToolDefinition>;
}

/** The tools a server serves: their definitions, or a catalog that loads each when called. */
export type ReadTools = readonly ReadToolDefinition[] | ReadToolCatalog;

export function isReadToolCatalog(tools: ReadTools): tools is ReadToolCatalog {
  return !Array.isArray(tools);
}

/** Each tool's name and hints, whichever way the tools are held (the start-up check reads only these). */
export function listedReadTools(
  tools: ReadTools,
): readonly Pick<ReadToolDefinition, "name" | "annotations">[] {
  if (!isReadToolCatalog(tools)) return tools;
  return tools.listing.map((tool) => ({
    name: tool.name,
    annotations: tool.annotations as ReadToolDefinition["annotations"],
  }));
}

let catalog: ReadToolCatalog | undefined;

/** The catalog of the contract's read tools (built once per process). */
export function readToolCatalog(): ReadToolCatalog {
  catalog ??= {
    listing: READ_TOOL_NAMES.map(listingEntry),
    async load(name) {
      const loader = READ_TOOL_LOADERS[name as keyof typeof READ_TOOL_LOADERS];
      if (loader === undefined) throw new Error(`no read tool ${name}`);
      const definition = await loader();
      if (definition.name !== name) throw new Error(`the loader of ${name} gave ${definition.name}`);
      return definition;
    },
  };
  return catalog;
}

/** One tool's entry, with the keys in the order the registration lists a definition's. */
function listingEntry(name: string): Tool {
  const card = READ_TOOL_CARDS[name];
  const schemas = READ_TOOL_JSON_SCHEMAS[name];
  if (card === undefined || schemas === undefined) {
    throw new Error(`the generated tables lack read tool ${name}; run pnpm toolsnaps:update`);
  }
  return {
    name,
    title: card.title,
    description: card.description,
    inputSchema: schemas.input as Tool["inputSchema"],
    outputSchema: schemas.output as Tool["outputSchema"],
    annotations: { ...card.annotations },
    ...(card._meta === undefined ? {} : { _meta: { ...card._meta } }),
  };
}
