/**
 * Payload decoding with T3-style defect messages. The real server decodes with Effect Schema and
 * answers the first issue as `Exit Failure [Die "<message>\n  at [path]"]` (fixtures 33, 33b, 74).
 * We decode with zod and render its first issue in the same words.
 */
import { z } from "zod";

export type DecodeResult<T> = { ok: true; value: T } | { ok: false; defect: string };

const formatPath = (path: readonly PropertyKey[]): string =>
  path.map((key) => (typeof key === "number" ? `[${key}]` : `[${JSON.stringify(String(key))}]`)).join("");

function valueAt(input: unknown, path: readonly PropertyKey[]): { found: boolean; value: unknown } {
  let current: unknown = input;
  for (const key of path) {
    if (current === null || typeof current !== "object" || !(key in (current as object))) {
      return { found: false, value: undefined };
    }
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return { found: true, value: current };
}

const show = (value: unknown): string =>
  typeof value === "string" ? JSON.stringify(value) : String(JSON.stringify(value) ?? value);

function describeIssue(issue: z.core.$ZodIssue, input: unknown): string {
  const at = valueAt(input, issue.path);
  if (!at.found && issue.code !== "unrecognized_keys") return "Missing key";
  switch (issue.code) {
    case "invalid_type":
      return `Expected ${issue.expected}, got ${show(at.value)}`;
    case "too_small":
      if (issue.origin === "string" || issue.origin === "array") {
        return `Expected a value with a length of at least ${issue.minimum}`;
      }
      return `Expected a value greater than or equal to ${issue.minimum}, got ${show(at.value)}`;
    case "too_big":
      if (issue.origin === "string" || issue.origin === "array") {
        return `Expected a value with a length of at most ${issue.maximum}`;
      }
      return `Expected a value less than or equal to ${issue.maximum}, got ${show(at.value)}`;
    case "invalid_value":
      return `Expected ${issue.values.map((v) => JSON.stringify(v)).join(" | ")}, got ${show(at.value)}`;
    case "unrecognized_keys":
      return "Unexpected key";
    case "invalid_union":
      return `Expected a value matching one of the union members, got ${show(at.value)}`;
    default:
      return issue.message;
  }
}

export function firstIssueDefect(error: z.ZodError, input: unknown): string {
  const issue = error.issues[0];
  if (!issue) return "Invalid payload";
  // For unknown keys the offending key belongs in the path, as Effect reports it.
  const path =
    issue.code === "unrecognized_keys" && issue.keys[0] !== undefined
      ? [...issue.path, issue.keys[0]]
      : issue.path;
  return `${describeIssue(issue, input)}\n  at ${formatPath(path)}`;
}

export function decodeWith<T>(schema: z.ZodType<T>, input: unknown): DecodeResult<T> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return { ok: true, value: parsed.data };
  const issue = parsed.error.issues[0];
  // A non-object payload has no path: Effect says "Expected <shape>, got <value>".
  if (issue && issue.path.length === 0 && issue.code === "invalid_type") {
    return { ok: false, defect: `Expected ${issue.expected}, got ${show(input)}` };
  }
  return { ok: false, defect: firstIssueDefect(parsed.error, input) };
}

/** Building blocks shared by command and RPC input schemas. */
export interface SchemaKit {
  readonly strict: boolean;
  object<S extends z.ZodRawShape>(shape: S): z.ZodObject<S>;
}

export function schemaKit(strict: boolean): SchemaKit {
  return {
    strict,
    object: <S extends z.ZodRawShape>(shape: S) =>
      (strict ? z.strictObject(shape) : z.object(shape)) as z.ZodObject<S>,
  };
}

/**
 * `build` run at most once per strictness for the whole module: zod schemas are immutable, and
 * building the command and launch schemas again for every simulator cost more CPU across the unit
 * tier than most of its tests.
 */
export function oncePerStrictness<T>(build: (strict: boolean) => T): (strict: boolean) => T {
  const built = new Map<boolean, T>();
  return (strict) => {
    let value = built.get(strict);
    if (value === undefined) {
      value = build(strict);
      built.set(strict, value);
    }
    return value;
  };
}

/** Branded ids in T3 are trimmed non-empty strings. */
export const idString = () =>
  z
    .string()
    .min(1)
    .refine((value) => value.trim() === value, {
      message: "Expected a string with no leading or trailing whitespace",
    });

/** `DateTimeUtc` fields: any string `Date.parse` accepts. */
export const dateTimeString = () =>
  z.string().refine((value) => !Number.isNaN(Date.parse(value)), { message: "Expected a valid date" });

export const nonNegativeInt = () => z.number().int().min(0);
