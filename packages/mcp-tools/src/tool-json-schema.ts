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
 * - Every `type: [...]` (zod's form of a nullable value or a union of primitives) becomes
 *   `anyOf` with one single-typed branch per type, and a schema that constrains nothing (zod's
 *   `z.unknown()`) lists every JSON type, in input and output schemas alike: the MCP Inspector's
 *   `--strict` schema lint warns on both (312 warnings on the read tools before), single-type
 *   dialects (Gemini's function declarations) cannot express a type array, and Ajv's strict mode
 *   warns on unions other than nullable ones. The values accepted do not change.
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

/**
 * Gives `toolJsonSchema` the JSON Schema of `schema` computed ahead of time, so a process does not
 * convert it on its first `tools/list` (converting the read tools took tens of milliseconds of a
 * spawned server's first answer, docs/adr/0060). `json` must be exactly what `convertToolJsonSchema`
 * gives for `schema`: whoever keeps such a table keeps a test that compares the two.
 */
export function rememberToolJsonSchema(schema: z.ZodType, io: "input" | "output", json: JsonNode): void {
  converted[io].set(schema, json);
}

/** What `toolJsonSchema` answers for `schema`, converted now: never from what was remembered. */
export function convertToolJsonSchema(schema: z.ZodType, io: "input" | "output"): JsonNode {
  return convert(schema, io);
}

function convert(schema: z.ZodType, io: "input" | "output"): JsonNode {
  const json = z.toJSONSchema(schema, { io, target: "draft-7", reused: "inline", cycles: "ref" }) as JsonNode;
  if (io === "output") return portableSchema(json) as JsonNode;
  const definitions = (json.definitions ?? json.$defs ?? {}) as Record<string, JsonNode>;
  const { definitions: _d, $defs: _defs, ...root } = json;
  // After inlining: the point where a recursive schema repeats is `{}`, made portable too.
  return portableSchema(simplify(root, { root, definitions }, [])) as JsonNode;
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
const TYPED_KEYWORDS = new Set(Object.values(TYPE_KEYWORDS).flat());

/** Keywords whose value is one subschema, a list of them, or a map of them. */
const ONE_SUBSCHEMA = [
  "items",
  "contains",
  "not",
  "additionalProperties",
  "additionalItems",
  "if",
  "then",
  "else",
];
const SUBSCHEMA_LISTS = ["anyOf", "allOf", "oneOf", "items"];
const SUBSCHEMA_MAPS = ["properties", "patternProperties", "definitions", "$defs"];

/** Any JSON value, said so explicitly: one branch per JSON type. */
const ANY_JSON_BRANCHES = ["object", "array", "string", "number", "boolean", "null"].map((type) => ({
  type,
}));

/** Whether a schema says anything about its value (beyond annotations such as `description`). */
function constrains(node: JsonNode): boolean {
  return Object.keys(node).some(
    (key) =>
      key === "type" ||
      key === "enum" ||
      key === "const" ||
      key === "$ref" ||
      TYPED_KEYWORDS.has(key) ||
      ONE_SUBSCHEMA.includes(key) ||
      SUBSCHEMA_LISTS.includes(key),
  );
}

/**
 * The portable spelling of a zod JSON Schema: each `type: [...]` becomes `anyOf` branches of one
 * type each (the type's own keywords move into its branch), and a schema that constrains nothing
 * (zod's `z.unknown()`, `{}`) lists every JSON type instead. The values accepted are the same;
 * strict schema linters (the MCP Inspector's `--strict`) and single-type dialects then take it.
 */
function portableSchema(node: unknown, keyword?: string): unknown {
  if (typeof node !== "object" || node === null || Array.isArray(node)) return node;
  const record: JsonNode = { ...(node as JsonNode) };
  for (const key of ONE_SUBSCHEMA) {
    if (key in record && !Array.isArray(record[key])) record[key] = portableSchema(record[key], key);
  }
  for (const key of SUBSCHEMA_LISTS) {
    if (Array.isArray(record[key]))
      record[key] = (record[key] as unknown[]).map((item) => portableSchema(item, key));
  }
  for (const key of SUBSCHEMA_MAPS) {
    const map = record[key];
    if (typeof map !== "object" || map === null || Array.isArray(map)) continue;
    record[key] = Object.fromEntries(
      Object.entries(map).map(([name, sub]) => [name, portableSchema(sub, key)]),
    );
  }
  if (Array.isArray(record.type)) return splitTypes(record, record.type as string[]);
  // `not: {}` means "nothing": it stays as it is.
  if (!constrains(record) && keyword !== "not" && keyword !== undefined)
    return { ...record, anyOf: ANY_JSON_BRANCHES };
  return record;
}

function splitTypes(record: JsonNode, types: readonly string[]): JsonNode {
  if (types.length === 1) return { ...record, type: types[0] };
  const shared: JsonNode = {};
  for (const [key, value] of Object.entries(record))
    if (key !== "type" && !TYPED_KEYWORDS.has(key)) shared[key] = value;
  const branches = types.map((type) => {
    const branch: JsonNode = { type };
    for (const key of TYPE_KEYWORDS[type] ?? []) if (key in record) branch[key] = record[key];
    return branch;
  });
  if (shared.anyOf === undefined) return { ...shared, anyOf: branches };
  const { anyOf, ...rest } = shared;
  return { ...rest, allOf: [{ anyOf }, { anyOf: branches }] };
}
