/**
 * A relay answer shaped for a tool's output. The contract leaves out a field the gate had nothing
 * to say about; the tool answers null instead, so its output schema lists and requires every key a
 * client may branch on. Deriving the tool's schema from the contract's keeps one definition of
 * each field: a field the contract adds or retypes reaches the tool's schema (and its snapshot).
 */
import * as z from "zod";

/** The shape with each optional field made a required, nullable one. */
export type AbsentAsNullShape<Shape extends z.ZodRawShape> = {
  -readonly [Key in keyof Shape]: Shape[Key] extends z.ZodOptional<infer Inner>
    ? z.ZodNullable<Inner>
    : Shape[Key];
};

export function absentAsNullSchema<Shape extends z.ZodRawShape>(
  contract: z.ZodObject<Shape>,
): z.ZodObject<AbsentAsNullShape<Shape>> {
  const shape: Record<string, z.core.SomeType> = {};
  for (const [key, field] of Object.entries(contract.shape)) {
    shape[key] = field instanceof z.ZodOptional ? z.nullable(field.unwrap()) : field;
  }
  // Object.entries cannot carry the mapped type; the loop above builds exactly AbsentAsNullShape.
  return z.object(shape) as unknown as z.ZodObject<AbsentAsNullShape<Shape>>;
}

/** Every key of `schema`, taken from `answer`, an absent one as null; keys the schema lacks dropped. */
export function absentAsNull<Schema extends z.ZodObject>(
  schema: Schema,
  answer: { readonly [key: string]: unknown },
): z.output<Schema> {
  const shaped: Record<string, unknown> = {};
  for (const key of Object.keys(schema.shape)) shaped[key] = answer[key] ?? null;
  return shaped as z.output<Schema>;
}
