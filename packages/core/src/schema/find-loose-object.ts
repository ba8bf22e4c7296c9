import type * as z from "zod";

/**
 * Path of the first object inside `schema` that accepts unknown keys, or undefined when every
 * object is strict. Checked at registration because a non-strict object anywhere in an input
 * (a batch item, a nested filter) silently drops a misspelt or legacy key, the bug strict inputs
 * exist to prevent.
 */
export function findLooseObject(schema: z.ZodType, path = "input"): string | undefined {
  const def = schema._zod.def as unknown as Record<string, unknown> & { type: string };
  const child = (key: string): z.ZodType | undefined => def[key] as z.ZodType | undefined;
  switch (def.type) {
    case "object": {
      const catchall = child("catchall");
      if (catchall?._zod.def.type !== "never") return path;
      const shape = def.shape as Record<string, z.ZodType>;
      for (const [key, value] of Object.entries(shape)) {
        const loose = findLooseObject(value, `${path}.${key}`);
        if (loose !== undefined) return loose;
      }
      return undefined;
    }
    case "optional":
    case "nullable":
    case "default":
    case "prefault":
    case "readonly":
    case "catch":
    case "nonoptional":
      return inner(child("innerType"), path);
    case "array":
      return inner(child("element"), `${path}[]`);
    case "pipe":
      return inner(child("in"), path);
    case "union":
      return first((def.options as z.ZodType[]).map((option) => findLooseObject(option, path)));
    case "intersection":
      return first([inner(child("left"), path), inner(child("right"), path)]);
    case "tuple":
      return first(
        (def.items as z.ZodType[]).map((item, index) => findLooseObject(item, `${path}[${index}]`)),
      );
    case "record":
      return inner(child("valueType"), `${path}.*`);
    default:
      return undefined;
  }
}

function inner(schema: z.ZodType | undefined, path: string): string | undefined {
  return schema === undefined ? undefined : findLooseObject(schema, path);
}

function first(paths: ReadonlyArray<string | undefined>): string | undefined {
  return paths.find((path) => path !== undefined);
}
