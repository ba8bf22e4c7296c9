import type * as z from "zod";

/**
 * Path of the first object inside `schema` that would silently drop an unknown key, or undefined
 * when every object is strict. Checked when the tools are registered: a loose object anywhere in a
 * write input would let a misspelt or legacy key pass unseen, and a write must never guess.
 */
export function looseObjectPath(schema: z.ZodType, path = "input"): string | undefined {
  const def = schema._zod.def as unknown as Record<string, unknown> & { type: string };
  const at = (key: string) => def[key] as z.ZodType | undefined;
  const walk = (child: z.ZodType | undefined, where: string) =>
    child === undefined ? undefined : looseObjectPath(child, where);
  switch (def.type) {
    case "object": {
      if (at("catchall")?._zod.def.type !== "never") return path;
      for (const [key, value] of Object.entries(def.shape as Record<string, z.ZodType>)) {
        const loose = looseObjectPath(value, `${path}.${key}`);
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
      return walk(at("innerType"), path);
    case "array":
      return walk(at("element"), `${path}[]`);
    case "pipe":
      return walk(at("in"), path);
    case "union":
      return (def.options as z.ZodType[]).map((option) => looseObjectPath(option, path)).find(Boolean);
    case "intersection":
      return walk(at("left"), path) ?? walk(at("right"), path);
    case "record":
      return walk(at("valueType"), `${path}.*`);
    default:
      return undefined;
  }
}
