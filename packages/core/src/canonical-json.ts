import { hash } from "node:crypto";
import { ConnectorError } from "./errors.js";

/**
 * Canonical JSON: object keys sorted by UTF-16 code units, no whitespace, numbers and strings as
 * `JSON.stringify` writes them (the same rules as RFC 8785 for the values we accept). Two inputs
 * that mean the same thing hash the same, whatever order their keys were built in.
 *
 * Refused rather than silently changed: non-finite numbers, bigint, functions, symbols,
 * `undefined` inside arrays, cycles, and objects that are not plain (a Map would otherwise hash as
 * `{}` and collide with every other Map). Object properties whose value is `undefined` are left
 * out, as an absent optional field and an `undefined` one mean the same input. Values with
 * `toJSON` (Date) are replaced by its result.
 */
export function canonicalJson(value: unknown): string {
  const out: string[] = [];
  write(value, out, new Set());
  return out.join("");
}

/** SHA-256 hex of the canonical JSON of `[action, input]`: the idempotency fingerprint. */
export function hashInput(action: string, input: unknown): string {
  return sha256Hex(canonicalJson([action, input]));
}

/** One-shot (`crypto.hash`, Node ≥ 20.12): the same digest as a `createHash` object, at a fraction of its cost. */
export function sha256Hex(text: string): string {
  return hash("sha256", text, "hex");
}

function write(value: unknown, out: string[], ancestors: Set<object>): void {
  if (value === null) {
    out.push("null");
    return;
  }
  switch (typeof value) {
    case "string":
      out.push(JSON.stringify(value));
      return;
    case "boolean":
      out.push(value ? "true" : "false");
      return;
    case "number":
      if (!Number.isFinite(value)) throw refuse("a number that is not finite");
      out.push(JSON.stringify(value));
      return;
    case "object":
      writeObject(value, out, ancestors);
      return;
    default:
      throw refuse(`a value of type ${typeof value}`);
  }
}

function writeObject(value: object, out: string[], ancestors: Set<object>): void {
  if (ancestors.has(value)) throw refuse("a cycle");
  const withToJson = value as { toJSON?: unknown };
  if (typeof withToJson.toJSON === "function") {
    write((withToJson.toJSON as () => unknown).call(value), out, ancestors);
    return;
  }
  ancestors.add(value);
  if (Array.isArray(value)) {
    out.push("[");
    value.forEach((item, index) => {
      if (item === undefined) throw refuse("undefined inside an array");
      if (index > 0) out.push(",");
      write(item, out, ancestors);
    });
    out.push("]");
  } else {
    const prototype = Object.getPrototypeOf(value);
    if (prototype !== Object.prototype && prototype !== null) throw refuse("an object that is not plain");
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record)
      .filter((key) => record[key] !== undefined)
      .sort();
    out.push("{");
    keys.forEach((key, index) => {
      if (index > 0) out.push(",");
      out.push(JSON.stringify(key), ":");
      write(record[key], out, ancestors);
    });
    out.push("}");
  }
  ancestors.delete(value);
}

function refuse(what: string): ConnectorError {
  return new ConnectorError("invalid_input", `the input cannot be hashed: it contains ${what}`);
}
