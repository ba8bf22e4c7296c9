/**
 * Search that forgives accents and case: "Revisão" is found by "revisao", "REVIS" and "são".
 * NFD splits accented letters into a base letter plus combining marks, the marks (\p{M}) are
 * removed, then everything is lowercased. Locale-independent on purpose (`toLowerCase`, not
 * `toLocaleLowerCase`), so the same term finds the same items on every machine.
 */
export function normalizeSearchText(text: string): string {
  return text.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase();
}

/**
 * The normalised form of a user's search term, or undefined when there is nothing to search for
 * (missing, empty or only whitespace): such a term matches everything. Surrounding whitespace is
 * trimmed because a pasted " review " should find "review".
 */
export function normalizeSearchTerm(term: string | null | undefined): string | undefined {
  if (term === undefined || term === null) return undefined;
  const normalized = normalizeSearchText(term).trim();
  return normalized === "" ? undefined : normalized;
}

export interface Searchable {
  /** Display title; null or missing when the row has no textual title. */
  title?: string | null | undefined;
  /** The item's id (threadId, projectId). */
  id: string;
}

/** Substring match of the term over the title and the id, both normalised. */
export function matchesSearch(term: string | null | undefined, item: Searchable): boolean {
  const needle = normalizeSearchTerm(term);
  if (needle === undefined) return true;
  if (normalizeSearchText(item.id).includes(needle)) return true;
  return typeof item.title === "string" && normalizeSearchText(item.title).includes(needle);
}

/** Whole-title equality after normalisation (the `exact` mode of a title search). */
export function matchesExactTitle(term: string, title: string | null | undefined): boolean {
  const needle = normalizeSearchTerm(term);
  if (needle === undefined || typeof title !== "string") return false;
  return normalizeSearchText(title).trim() === needle;
}
