/**
 * The sort keys of paginated listings. A key is a short array of JSON scalars compared element by
 * element, each element in its own direction. Listings must make the last element a unique id so
 * that the order is total: two distinct items never compare equal, which is what lets a cursor say
 * "strictly after this key" without skipping or repeating an item.
 */
export type KeyPart = string | number | null;
export type SortKey = readonly KeyPart[];
export type SortDirection = "asc" | "desc";

/**
 * Total order over key parts, independent of locale: null < numbers < strings; numbers by value,
 * strings by UTF-16 code units. Locale-aware comparison is avoided on purpose because it can change
 * with the ICU data of the Node build, and a cursor must mean the same thing on every page.
 */
export function compareKeyParts(a: KeyPart, b: KeyPart): number {
  const rankA = partRank(a);
  const rankB = partRank(b);
  if (rankA !== rankB) return rankA - rankB;
  if (a === null || b === null) return 0;
  if (a < b) return -1;
  if (a > b) return 1;
  return 0;
}

/** Compares two keys of the same shape, honouring the direction of each element. */
export function compareKeys(a: SortKey, b: SortKey, directions: readonly SortDirection[]): number {
  for (let index = 0; index < directions.length; index++) {
    const order = compareKeyParts(a[index] ?? null, b[index] ?? null);
    if (order !== 0) return directions[index] === "desc" ? -order : order;
  }
  return 0;
}

export function isKeyPart(value: unknown): value is KeyPart {
  return value === null || typeof value === "string" || (typeof value === "number" && Number.isFinite(value));
}

function partRank(part: KeyPart): number {
  if (part === null) return 0;
  return typeof part === "number" ? 1 : 2;
}
