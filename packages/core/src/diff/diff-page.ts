/**
 * One page of a parsed diff, by file, within byte caps: each patch is cut to its own cap, and the
 * page stops before the file that would take the answer past its cap (a first file that alone
 * would is cut to fit). Sizes are measured as the answer carries them (JSON, UTF-8), so the cap
 * holds for the text a client receives.
 */
import { capText, utf8Bytes } from "./patch-cap.js";
import { type DiffFile, filePatch } from "./unified-diff.js";

export const DIFF_CAPS = Object.freeze({
  /** One file's patch in a page. */
  patchMaxBytes: 64 * 1024,
  /** A `path` call's one patch. */
  pathPatchMaxBytes: 1024 * 1024,
  /** The files of one answer, patches included (the envelope adds at most `envelopeBytes`). */
  answerMaxBytes: 512 * 1024,
  pageMaxFiles: 200,
  /** What the answer's other fields may take, kept out of the files' budget. */
  envelopeBytes: 4 * 1024,
});

export type DiffCaps = typeof DIFF_CAPS;

export interface DiffFileOut {
  path: string;
  previousPath?: string;
  status: DiffFile["status"];
  additions: number;
  deletions: number;
  binary: boolean;
  patch: string;
  truncated: boolean;
}

export interface DiffPage {
  files: DiffFileOut[];
  /** Index of the first file of the next page, when there is one. */
  next: number | undefined;
  /** A patch was cut, or a file of the page was left for the next one. */
  truncated: boolean;
}

function fileOut(file: DiffFile, patch: string, truncated: boolean): DiffFileOut {
  return {
    path: file.path,
    ...(file.previousPath === undefined ? {} : { previousPath: file.previousPath }),
    status: file.status,
    additions: file.additions,
    deletions: file.deletions,
    binary: file.binary,
    patch,
    truncated: truncated || file.incomplete,
  };
}

/** The JSON bytes an entry takes in the answer (plus its comma). */
function entryBytes(entry: DiffFileOut): number {
  return utf8Bytes(JSON.stringify(entry)) + 1;
}

/**
 * Cuts a patch so that its entry fits `budget` bytes. JSON may escape a character into up to six
 * bytes, so the cut starts from the raw budget and shrinks until the entry fits.
 */
function fitted(file: DiffFile, text: string, maxPatch: number, budget: number): DiffFileOut {
  let limit = maxPatch;
  for (;;) {
    const cut = capText(text, limit);
    const entry = fileOut(file, cut.text, cut.truncated);
    const size = entryBytes(entry);
    if (size <= budget || cut.text === "") return entry;
    limit = Math.max(0, Math.min(cut.bytes - 1, Math.floor((cut.bytes * budget) / size)));
  }
}

export function diffPage(text: string, files: readonly DiffFile[], start: number, caps: DiffCaps): DiffPage {
  const out: DiffFileOut[] = [];
  let used = 0;
  let truncated = false;
  let index = start;
  for (; index < files.length && out.length < caps.pageMaxFiles; index += 1) {
    const file = files[index] as DiffFile;
    const left = caps.answerMaxBytes - used;
    const entry = fitted(
      file,
      filePatch(text, file),
      caps.patchMaxBytes,
      out.length === 0 ? left : Number.MAX_SAFE_INTEGER,
    );
    const size = entryBytes(entry);
    if (out.length > 0 && size > left) break;
    out.push(entry);
    used += size;
    truncated ||= entry.truncated;
  }
  const next = index < files.length ? index : undefined;
  return { files: out, next, truncated: truncated || next !== undefined };
}

/** A `path` call: that one file, cut to the hard cap. */
export function onePathPage(text: string, file: DiffFile, caps: DiffCaps): DiffPage {
  const entry = fitted(
    file,
    filePatch(text, file),
    caps.pathPatchMaxBytes,
    caps.pathPatchMaxBytes + caps.envelopeBytes,
  );
  return { files: [entry], next: undefined, truncated: entry.truncated };
}
