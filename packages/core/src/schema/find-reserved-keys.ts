/**
 * Keys that name an object's prototype machinery. `JSON.parse` makes them ordinary own keys, but
 * zod's records (and any `out[key] = value` copy) assign them, which changes the copy's prototype
 * or drops the key silently: an `answers` record would accept `{"__proto__": …}` and send `{}`.
 * So they are refused, at any depth, like any unknown key, before a schema sees the input.
 */
export const RESERVED_KEYS: ReadonlySet<string> = new Set(["__proto__", "constructor", "prototype"]);

/** The dotted path of every own reserved key inside `value` (objects and arrays, any depth). */
export function findReservedKeys(value: unknown, path: readonly string[] = []): string[] {
  if (typeof value !== "object" || value === null) return [];
  const found: string[] = [];
  for (const key of Object.keys(value)) {
    const at = [...path, key];
    if (!Array.isArray(value) && RESERVED_KEYS.has(key)) found.push(at.join("."));
    else found.push(...findReservedKeys((value as Record<string, unknown>)[key], at));
  }
  return found;
}
