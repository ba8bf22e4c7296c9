/**
 * Structural comparison of a captured answer with the simulator's answer.
 *
 * Values are reduced to shapes: JSON type per field, recursively. Arrays are summarised by the
 * union of their elements' shapes, grouped by the element's discriminator (`kind`, `type` or
 * `_tag`) so a turn item of type "message" is compared with other "message" items only.
 * A field every captured element has must be in every simulated element too (and the reverse).
 * Ids, timestamps, traceIds and sequences are compared by type only; booleans and the values of
 * the protocol keys below are compared exactly because they carry the protocol's meaning.
 */

export type JsonType = "null" | "string" | "number" | "boolean" | "object" | "array";

/**
 * Keys whose string values are part of the protocol: tags, error codes and texts, item kinds,
 * run and thread states, scopes. (Names, titles and texts of user data are compared by type.)
 */
const VALUE_KEYS = new Set([
  "_tag",
  "code",
  "reason",
  "kind",
  "type",
  "status",
  "location",
  "requiredScope",
  "activityRunStatus",
  "defect",
  "message",
  "detail",
  "commandType",
  "scope",
  "sessionMethod",
  "policy",
  "role",
  "source",
]);
const DISCRIMINATORS = ["kind", "type", "_tag"] as const;

export interface Shape {
  types: Set<JsonType>;
  /** Object fields: the union over every object merged into this shape. */
  fields?: Map<string, Shape>;
  /** Array elements by variant ("kind=snapshot", or "" when elements have no discriminator). */
  variants?: Map<string, Shape>;
  /** Object fields present in every object merged into this shape. */
  always?: Set<string>;
  /** Seen values of a discriminator key. */
  values?: Set<string>;
}

export interface Difference {
  readonly path: string;
  readonly message: string;
}

function jsonType(value: unknown): JsonType {
  if (value === null || value === undefined) return "null";
  if (Array.isArray(value)) return "array";
  const type = typeof value;
  if (type === "string" || type === "number" || type === "boolean") return type;
  return "object";
}

function variantOf(value: unknown): string {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return "";
  const record = value as Record<string, unknown>;
  for (const key of DISCRIMINATORS) {
    const tag = record[key];
    if (typeof tag === "string") return `${key}=${tag}`;
  }
  return "";
}

export function shapeOf(value: unknown, key?: string): Shape {
  const type = jsonType(value);
  const shape: Shape = { types: new Set([type]) };
  if (type === "string" && key !== undefined && VALUE_KEYS.has(key))
    shape.values = new Set([value as string]);
  // Flags are protocol facts (authenticated:false, installed, the resume markers): by value.
  if (type === "boolean") shape.values = new Set([String(value)]);
  if (type === "object") {
    shape.fields = new Map();
    for (const [field, inner] of Object.entries(value as Record<string, unknown>)) {
      shape.fields.set(field, shapeOf(inner, field));
    }
    shape.always = new Set(shape.fields.keys());
  }
  if (type === "array") {
    shape.variants = new Map();
    for (const element of value as unknown[]) {
      const variant = variantOf(element);
      const elementShape = shapeOf(element);
      const known = shape.variants.get(variant);
      shape.variants.set(variant, known ? mergeShapes(known, elementShape) : elementShape);
    }
  }
  return shape;
}

function mergeMaps(a: Map<string, Shape> | undefined, b: Map<string, Shape> | undefined) {
  if (!a) return b;
  if (!b) return a;
  const merged = new Map(a);
  for (const [key, shape] of b) {
    const known = merged.get(key);
    merged.set(key, known ? mergeShapes(known, shape) : shape);
  }
  return merged;
}

export function mergeShapes(a: Shape, b: Shape): Shape {
  const merged: Shape = { types: new Set([...a.types, ...b.types]) };
  const fields = mergeMaps(a.fields, b.fields);
  const variants = mergeMaps(a.variants, b.variants);
  if (fields) merged.fields = fields;
  if (a.always && b.always) merged.always = new Set([...a.always].filter((key) => b.always?.has(key)));
  else if (a.always || b.always) merged.always = new Set(a.always ?? b.always);
  if (variants) merged.variants = variants;
  if (a.values || b.values) merged.values = new Set([...(a.values ?? []), ...(b.values ?? [])]);
  return merged;
}

const list = (set: Iterable<string>) => [...set].sort().join("|");

/** Every structural difference between the captured shape and the simulator's, by JSON path. */
export function compareShapes(expected: Shape, actual: Shape, path: string, out: Difference[]): void {
  const expectedTypes = list(expected.types);
  const actualTypes = list(actual.types);
  if (expectedTypes !== actualTypes) {
    out.push({ path, message: `type ${expectedTypes} in the capture, ${actualTypes} in the simulator` });
  }
  if (expected.values && actual.values && list(expected.values) !== list(actual.values)) {
    out.push({
      path,
      message: `value ${list(expected.values)} in the capture, ${list(actual.values)} in the simulator`,
    });
  }
  if (expected.fields && actual.fields) {
    for (const [key, shape] of expected.fields) {
      const other = actual.fields.get(key);
      if (other && expected.always?.has(key) && !actual.always?.has(key)) {
        out.push({
          path: `${path}.${key}`,
          message: "always present in the capture, sometimes absent in the simulator",
        });
      }
      if (other && !expected.always?.has(key) && actual.always?.has(key)) {
        out.push({
          path: `${path}.${key}`,
          message: "sometimes absent in the capture, always present in the simulator",
        });
      }
      if (other) compareShapes(shape, other, `${path}.${key}`, out);
      else out.push({ path: `${path}.${key}`, message: "field missing in the simulator" });
    }
    for (const key of actual.fields.keys()) {
      if (!expected.fields.has(key))
        out.push({ path: `${path}.${key}`, message: "extra field in the simulator" });
    }
  }
  if (expected.variants && actual.variants) compareVariants(expected.variants, actual.variants, path, out);
}

function compareVariants(
  expected: Map<string, Shape>,
  actual: Map<string, Shape>,
  path: string,
  out: Difference[],
) {
  if (expected.size > 0 && actual.size === 0) {
    out.push({ path: `${path}[]`, message: "empty array in the simulator, elements in the capture" });
    return;
  }
  if (expected.size === 0 && actual.size > 0) {
    out.push({ path: `${path}[]`, message: "elements in the simulator, empty array in the capture" });
    return;
  }
  for (const [variant, shape] of expected) {
    const other = actual.get(variant);
    const at = `${path}[${variant}]`;
    if (other) compareShapes(shape, other, at, out);
    else out.push({ path: at, message: "element variant missing in the simulator" });
  }
  for (const variant of actual.keys()) {
    if (!expected.has(variant))
      out.push({ path: `${path}[${variant}]`, message: "extra element variant in the simulator" });
  }
}

export function compareValues(expected: unknown, actual: unknown, path: string, out: Difference[]): void {
  compareShapes(shapeOf(expected), shapeOf(actual), path, out);
}
