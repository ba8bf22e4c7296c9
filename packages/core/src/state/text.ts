/** Text helpers shared by the projection. Lengths count Unicode code points, never half a pair. */

export const ELLIPSIS = "…";

export function isNonBlankString(value: unknown): value is string {
  return typeof value === "string" && value.trim().length > 0;
}

export interface CutText {
  text: string;
  truncated: boolean;
}

/** Keep the first `max` characters, then "…" (used where the start of a text matters). */
export function keepStart(text: string, max: number): CutText {
  // A string is never longer in code points than in UTF-16 units, so this check is exact enough
  // to skip the split on the common short text.
  if (text.length <= max) return { text, truncated: false };
  const points = Array.from(text);
  if (points.length <= max) return { text, truncated: false };
  return { text: points.slice(0, max).join("") + ELLIPSIS, truncated: true };
}

/** "…" then the last `max` characters (used where the end of a text is the news: a response). */
export function keepEnd(text: string, max: number): CutText {
  if (text.length <= max) return { text, truncated: false };
  const points = Array.from(text);
  if (points.length <= max) return { text, truncated: false };
  return { text: ELLIPSIS + points.slice(points.length - max).join(""), truncated: true };
}
