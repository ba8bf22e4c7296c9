import * as z from "zod";

type JsonNode = Record<string, unknown>;

/**
 * A tool schema as JSON Schema for `tools/list`. Input schemas are kept to the subset that
 * function-calling converters accept (OpenAI's among them): no `$ref` and no `propertyNames`.
 *
 * - A recursive schema (an answer that may be any JSON value) is inlined down to the point where
 *   it repeats, and the repeat is described as `{}` (any value). The server still validates the
 *   full zod schema, so nothing the JSON Schema allows slips past it.
 * - zod emits `propertyNames` for a record (`{type: "string"}`, with a length when the keys have
 *   one); it is dropped. Every JSON object key is a string already, and the server still checks
 *   the keys' constraints against the zod schema.
 *
 * - A union of types other than `null` (`type: ["string", "boolean"]`, zod's form of
 *   `z.union([z.string(), z.boolean()])`) becomes `anyOf` with one branch per type, in input and
 *   output schemas alike: Ajv's strict mode, which the MCP Inspector and other clients compile
 *   schemas with, warns on every such union (a nullable `[T, "null"]` it accepts, and keeps).
 *
 * Output schemas are not turned into function signatures and otherwise keep zod's form. Tests
 * check the input schemas of every tool of both servers, and every schema under strict Ajv.
 */
export function toolJsonSchema(schema: z.ZodType, io: "input" | "output"): JsonNode {
  // Converting costs milliseconds per tool and the schemas never change: `serve --http` builds a
  // server per request, which would otherwise pay for all of them at every `tools/list`. The
  // result is shared, so callers must not modify it (they only serialise it).
  const known = converted[io].get(schema);
  if (known !== undefined) return known;
  const json = convert(schema, io);
  converted[io].set(schema, json);
  return json;
}

const converted = { input: new WeakMap<z.ZodType, JsonNode>(), output: new WeakMap<z.ZodType, JsonNode>() };

function convert(schema: z.ZodType, io: "input" | "output"): JsonNode {
  const json = splitUnionTypes(
    z.toJSONSchema(schema, { io, target: "draft-7", reused: "inline", cycles: "ref" }),
  ) as JsonNode;
  if (io === "output") return json;
  const definitions = (json.definitions ?? json.$defs ?? {}) as Record<string, JsonNode>;
  const { definitions: _d, $defs: _defs, ...root } = json;
  return simplify(root, { root, definitions }, []) as JsonNode;
}

interface Definitions {
  root: JsonNode;
  definitions: Record<string, JsonNode>;
}

function simplify(node: unknown, defs: Definitions, stack: readonly string[]): unknown {
  if (Array.isArray(node)) return node.map((item) => simplify(item, defs, stack));
  if (typeof node !== "object" || node === null) return node;
  const record = node as JsonNode;
  const ref = record.$ref;
  if (typeof ref === "string") {
    const { $ref: _ref, ...rest } = record;
    if (stack.includes(ref)) return simplify(rest, defs, stack);
    const target = resolve(ref, defs);
    return simplify({ ...target, ...rest }, defs, [...stack, ref]);
  }
  const out: JsonNode = {};
  for (const [key, value] of Object.entries(record)) {
    if (key === "propertyNames") continue;
    if (key === "$schema" && stack.length > 0) continue;
    out[key] = simplify(value, defs, stack);
  }
  return out;
}

function resolve(ref: string, defs: Definitions): JsonNode {
  if (ref === "#") return defs.root;
  const name = ref.replace(/^#\/(definitions|\$defs)\//, "");
  const target = defs.definitions[name];
  if (target === undefined) throw new Error(`tool schema has an unresolvable $ref ${ref}`);
  return target;
}

/** Keywords that apply to one JSON type: they move into that type's branch of a split union. */
const TYPE_KEYWORDS: Record<string, readonly string[]> = {
  string: ["minLength", "maxLength", "pattern", "format"],
  number: ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"],
  integer: ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"],
  object: [
    "properties",
    "required",
    "additionalProperties",
    "patternProperties",
    "minProperties",
    "maxProperties",
  ],
  array: ["items", "minItems", "maxItems", "uniqueItems", "contains", "additionalItems"],
};

function splitUnionTypes(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(splitUnionTypes);
  if (typeof node !== "object" || node === null) return node;
  const record: JsonNode = {};
  for (const [key, value] of Object.entries(node)) record[key] = splitUnionTypes(value);
  const types = record.type;
  if (!Array.isArray(types) || types.filter((type) => type !== "null").length < 2) return record;
  const specific = new Set(Object.values(TYPE_KEYWORDS).flat());
  const shared: JsonNode = {};
  for (const [key, value] of Object.entries(record))
    if (key !== "type" && !specific.has(key)) shared[key] = value;
  const branches = (types as string[]).map((type) => {
    const branch: JsonNode = { type };
    for (const key of TYPE_KEYWORDS[type] ?? []) if (key in record) branch[key] = record[key];
    return branch;
  });
  if (shared.anyOf === undefined) return { ...shared, anyOf: branches };
  const { anyOf, ...rest } = shared;
  return { ...rest, allOf: [{ anyOf }, { anyOf: branches }] };
}
