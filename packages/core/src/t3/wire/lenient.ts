import { z } from "zod";

/**
 * Building blocks for forward-compatible wire schemas. A newer T3 server adds fields, enum values
 * and list entries all the time; a read must keep working, so objects are loose (unknown keys are
 * kept), enums are open (any string is accepted, the known values only help the type checker) and
 * lists that T3 itself marks forward compatible drop the entries they cannot decode.
 */

/** A string enum that also accepts values this build does not know yet. */
export function openEnum<const T extends readonly string[]>(_known: T) {
  return z.custom<T[number] | (string & {})>((value) => typeof value === "string", {
    message: "expected a string",
  });
}

/** A list whose undecodable entries are dropped instead of failing the whole read. */
export function forwardCompatibleArray<S extends z.ZodType>(item: S) {
  return z.array(z.unknown()).transform((entries) =>
    entries.flatMap((entry) => {
      const parsed = item.safeParse(entry);
      return parsed.success ? [parsed.data as z.output<S>] : [];
    }),
  );
}

/** An array that a newer or older server may omit; absent means empty. */
export function listOf<S extends z.ZodType>(item: S) {
  return z.array(item).optional().default([]);
}

export const isoString = z.string();
export const nonNegativeInt = z.number().int().nonnegative();

/**
 * A loose object schema that answers its input object itself once validated, instead of the
 * copy zod builds. Large shells are tens of thousands of rows: zod's copy of a loose object costs
 * several times the parsed JSON in heap (about 2.8 KB more per shell row, measured) and most of
 * the decode time, while the known keys are checked exactly the same way here, by the same shape
 * in strip mode (which zod compiles to a fast path), and unknown keys stay as they came.
 *
 * Only for schemas whose known keys never transform a value: the checked output equals the input
 * there, except that a key with a default that the input lacks is filled in (on the input, which
 * is the caller's freshly parsed JSON). Failures report zod's own issues, paths included.
 */
export function validatedInPlace<S extends z.ZodObject>(schema: S) {
  const check = z.object(schema.shape);
  const defaulted = Object.entries(schema.shape)
    .filter(([, field]) => field instanceof z.ZodDefault)
    .map(([key]) => key);
  return z.unknown().transform((value, ctx): z.output<S> => {
    const result = check.safeParse(value);
    if (!result.success) {
      for (const issue of result.error.issues) ctx.issues.push({ ...issue, input: undefined });
      return z.NEVER;
    }
    const row = value as Record<string, unknown>;
    const checked = result.data as Record<string, unknown>;
    for (const key of defaulted) if (row[key] === undefined) row[key] = checked[key];
    return row as z.output<S>;
  });
}
