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
