/**
 * @module A client's name as the consent page and the log show it. The name is the client's own
 * text (a DCR request or a metadata document), so it may carry characters that change what a
 * person reads: right-to-left overrides and isolates that reorder the rest of the line, zero-width
 * and other invisible formatting characters, controls and line breaks. Those are removed, runs of
 * spaces become one, and what is left is capped; an empty result reads "Unnamed client".
 */

const MAX_NAME_LENGTH = 128;

/** Line breaks and tabs: they separate words, so they become a space. */
const BREAKS = /[\t\n\v\f\r\u0085\p{Zl}\p{Zp}]/gu;
/**
 * Other controls (Cc), formatting characters (Cf: bidi embeddings, overrides and isolates,
 * zero-width joiners, the BOM, invisible operators) and the tag block.
 */
const UNSHOWN = /[\p{Cc}\p{Cf}\u{E0000}-\u{E007F}]/gu;

export function displayableClientName(name: string | undefined): string {
  const cleaned = (name ?? "").replace(BREAKS, " ").replace(UNSHOWN, "").replace(/\s+/g, " ").trim();
  const capped = [...cleaned].slice(0, MAX_NAME_LENGTH).join("");
  return capped === "" ? "Unnamed client" : capped;
}
