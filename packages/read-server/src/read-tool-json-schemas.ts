import { rememberToolJsonSchema } from "@t3-connector/mcp-tools";
import type { ReadToolDefinition } from "./read-tool.js";
import { READ_TOOL_JSON_SCHEMAS } from "./read-tool-json-schemas.generated.js";
import { readToolDefinitions } from "./tools/index.js";

let remembered = false;

/**
 * The read tools `serve` runs, with their JSON Schemas converted when the package was written
 * (read-tool-json-schemas.generated.ts) handed to the one converter of both servers: a spawned
 * `serve` then answers its first `tools/list` without converting them, which took tens of
 * milliseconds of its first answer (docs/adr/0060). The table is tied to these tools' own schema
 * objects, so a tool defined elsewhere under the same name is converted as before;
 * test/framework/read-tool-json-schemas.test.ts fails when the table differs from what the
 * converter gives now.
 */
export function readToolsWithKnownJsonSchemas(): readonly ReadToolDefinition[] {
  if (!remembered) {
    remembered = true;
    for (const definition of readToolDefinitions) {
      const known = READ_TOOL_JSON_SCHEMAS[definition.name];
      if (known === undefined) continue;
      rememberToolJsonSchema(definition.inputSchema, "input", known.input);
      rememberToolJsonSchema(definition.outputSchema, "output", known.output);
    }
  }
  return readToolDefinitions;
}
