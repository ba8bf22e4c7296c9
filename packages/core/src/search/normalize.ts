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

/** An item's id and title already normalised (null: no textual title), to search many times. */
export interface NormalizedSearchable {
  id: string;
  title: string | null;
}

export function normalizeSearchable(item: Searchable): NormalizedSearchable {
  return {
    id: normalizeSearchText(item.id),
    title: typeof item.title === "string" ? normalizeSearchText(item.title) : null,
  };
}

/** `matchesSearch` with the needle (`normalizeSearchTerm`) and the item normalised beforehand. */
export function matchesNormalizedSearch(needle: string, item: NormalizedSearchable): boolean {
  return item.id.includes(needle) || item.title?.includes(needle) === true;
}

/** `matchesExactTitle` with the needle and the item normalised beforehand. */
export function matchesNormalizedExactTitle(needle: string, item: NormalizedSearchable): boolean {
  return item.title !== null && item.title.trim() === needle;
}

/** Substring match of the term over the title and the id, both normalised. */
export function matchesSearch(term: string | null | undefined, item: Searchable): boolean {
  const needle = normalizeSearchTerm(term);
  if (needle === undefined) return true;
  return matchesNormalizedSearch(needle, normalizeSearchable(item));
}

/** Whole-title equality after normalisation (the `exact` mode of a title search). */
export function matchesExactTitle(term: string, title: string | null | undefined): boolean {
  const needle = normalizeSearchTerm(term);
  if (needle === undefined || typeof title !== "string") return false;
  return matchesNormalizedExactTitle(needle, { id: "", title: normalizeSearchText(title) });
}
