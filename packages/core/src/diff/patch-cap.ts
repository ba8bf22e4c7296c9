/**
 * Cutting a patch to a byte budget. A cut patch ends at a line end, so a reader never sees half a
 * line (nor half a character), and says it was cut.
 */
import { type DiffFile, filePatch } from "./unified-diff.js";

export interface CappedText {
  readonly text: string;
  readonly truncated: boolean;
  /** UTF-8 bytes of `text`. */
  readonly bytes: number;
}

export function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

/** The longest run of whole lines from the start of `text` within `maxBytes` UTF-8 bytes. */
export function capText(text: string, maxBytes: number): CappedText {
  // A character is at most 3 UTF-8 bytes per UTF-16 unit: a short text needs no measure.
  if (text.length * 3 <= maxBytes) return { text, truncated: false, bytes: utf8Bytes(text) };
  const whole = utf8Bytes(text);
  if (whole <= maxBytes) return { text, truncated: false, bytes: whole };
  let candidate = text.slice(0, Math.max(0, maxBytes));
  let size = utf8Bytes(candidate);
  while (size > maxBytes) {
    candidate = candidate.slice(0, Math.floor((candidate.length * maxBytes) / size));
    size = utf8Bytes(candidate);
  }
  const lastLine = candidate.lastIndexOf("\n");
  const cut = lastLine === -1 ? "" : candidate.slice(0, lastLine + 1);
  return { text: cut, truncated: true, bytes: utf8Bytes(cut) };
}

/** One file's patch from the diff text, cut to `maxBytes`. */
export function cappedFilePatch(
  text: string,
  file: Pick<DiffFile, "start" | "end">,
  maxBytes: number,
): CappedText {
  return capText(filePatch(text, file), maxBytes);
}
