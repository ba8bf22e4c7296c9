/**
 * "Did you mean …": the known word closest to a mistyped one, if any is close enough that the
 * suggestion helps rather than puzzles. Close means an edit distance (insert, delete, replace,
 * swap of neighbours) of at most a third of the word, at least 1 and at most 3, or the typed word
 * being the start of exactly one known word (`env` for `environments`).
 */
export function suggestionFor(typed: string, known: readonly string[]): string | undefined {
  if (typed === "") return undefined;
  const prefixed = known.filter((word) => typed.length >= 3 && word.startsWith(typed));
  if (prefixed.length === 1) return prefixed[0];
  const bare = typed.replace(/^-+/, "");
  const limit = Math.min(3, Math.max(1, Math.floor(bare.length / 3)));
  let best: { word: string; distance: number } | undefined;
  for (const word of known) {
    const distance = editDistance(typed, word);
    if (distance <= limit && (best === undefined || distance < best.distance)) best = { word, distance };
  }
  return best?.word;
}

/** Damerau–Levenshtein (optimal string alignment) distance. */
function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number): number => rows[i]?.[j] ?? Number.POSITIVE_INFINITY;
  for (let i = 1; i <= a.length; i += 1) {
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let distance = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        distance = Math.min(distance, at(i - 2, j - 2) + 1);
      }
      (rows[i] as number[])[j] = distance;
    }
  }
  return at(a.length, b.length);
}
