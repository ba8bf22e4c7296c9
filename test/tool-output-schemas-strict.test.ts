import { type Listing, listBridgeServer, listReadServer } from "@t3-connector/test-support/tool-listing";
import { Ajv } from "ajv";
import addFormats from "ajv-formats";
import { afterAll, describe, expect, it } from "vitest";

// What strict clients say about the tools' schemas. The MCP Inspector's `tools/list --strict` lints
// each schema for portability (a `type` array, a schema that constrains nothing, a bare boolean
// schema, a remote `$ref`: 312 warnings on the read tools before); Ajv's strict mode, which clients
// compile schemas with, warns on unions and keywords without their type. Every input and output
// schema of both servers must pass both without a single warning.

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

/** The Inspector's portability rules, as its `--strict` report states them. */
function portabilityFindings(schemas: Array<{ name: string; schema: unknown }>): string[] {
  const findings: string[] = [];
  const booleanAllowed = new Set([
    "additionalProperties",
    "unevaluatedProperties",
    "additionalItems",
    "unevaluatedItems",
  ]);
  const annotations = new Set([
    "description",
    "title",
    "default",
    "examples",
    "$schema",
    "$comment",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$id",
  ]);
  const walk = (node: unknown, at: string, keyword: string | undefined): void => {
    if (typeof node === "boolean") {
      if (keyword === undefined || !booleanAllowed.has(keyword)) findings.push(`${at}: bare boolean schema`);
      return;
    }
    if (typeof node !== "object" || node === null || Array.isArray(node)) return;
    const record = node as Record<string, unknown>;
    if (Array.isArray(record.type)) findings.push(`${at}: type array ${JSON.stringify(record.type)}`);
    if (typeof record.$ref === "string" && !record.$ref.startsWith("#")) findings.push(`${at}: remote $ref`);
    const constraining = Object.keys(record).filter((key) => !annotations.has(key) && key !== "if");
    if (constraining.length === 0 && keyword !== "not") findings.push(`${at}: constrains nothing`);
    for (const key of ["properties", "patternProperties", "definitions", "$defs", "dependentSchemas"]) {
      const map = record[key];
      if (typeof map === "object" && map !== null && !Array.isArray(map))
        for (const [name, sub] of Object.entries(map)) walk(sub, `${at}.${key}.${name}`, key);
    }
    for (const key of ["anyOf", "allOf", "oneOf", "prefixItems"]) {
      if (!Array.isArray(record[key])) continue;
      for (const [i, sub] of (record[key] as unknown[]).entries()) walk(sub, `${at}.${key}[${i}]`, key);
    }
    for (const key of [
      "items",
      "contains",
      "not",
      "propertyNames",
      "if",
      "then",
      "else",
      "additionalProperties",
      "additionalItems",
    ]) {
      const sub = record[key];
      if (Array.isArray(sub)) {
        for (const [i, item] of sub.entries()) walk(item, `${at}.${key}[${i}]`, key);
      } else if (sub !== undefined) walk(sub, `${at}.${key}`, key);
    }
  };
  for (const { name, schema } of schemas) walk(schema, name, undefined);
  return findings;
}

describe("tool schemas under strict clients", () => {
  it.each([
    ["read", listReadServer],
    ["bridge", listBridgeServer],
  ])(
    "the %s server's schemas pass the Inspector's portability lint and strict Ajv without a warning",
    async (_server, list) => {
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
      expect(portabilityFindings(schemas)).toEqual([]);
    },
  );
});
