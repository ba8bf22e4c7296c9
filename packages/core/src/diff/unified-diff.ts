/**
 * The one parser of T3's diffs (`orchestration.getTurnDiff` / `getFullThreadDiff` answer the
 * output of `git diff --patch`). It reads the text once, line by line, and keeps per file only
 * counts, flags and where the file's section lies in the text: a patch is a slice of the text,
 * taken only for the files a caller shows. It reads nothing but the string it is given.
 *
 * What it understands: git's extended headers (new/deleted file, old/new mode, rename and copy,
 * similarity, index), quoted paths, binary files (`Binary files … differ` and `GIT binary
 * patch`), "\ No newline at end of file", CR-LF line ends (a CR belongs to the line's text), and
 * hunks of any size: a hunk's lines are counted against its header, so a removed line that reads
 * "-- x" (printed "--- x") is a deletion, not a header. Plain unified diffs without
 * `diff --git` lines are read too, a file per `---`/`+++` pair.
 */
import { type GitHeaderPaths, gitHeaderPaths, headerPath, stripSidePrefix } from "./git-path.js";

export type DiffFileStatus = "added" | "deleted" | "modified" | "renamed" | "copied";

export interface DiffFile {
  /** The file's path after the change (before it, for a deleted file). */
  readonly path: string;
  /** The path before a rename or copy; absent otherwise. */
  readonly previousPath?: string;
  readonly status: DiffFileStatus;
  readonly additions: number;
  readonly deletions: number;
  readonly binary: boolean;
  /** The file mode before and after, when the diff states them (`100644`, `100755`, `120000`). */
  readonly oldMode?: string;
  readonly newMode?: string;
  readonly hunks: number;
  /** The text ended inside one of this file's hunks (a diff cut short upstream). */
  readonly incomplete: boolean;
  /** This file's section of the diff text: `text.slice(start, end)` is its patch, headers included. */
  readonly start: number;
  readonly end: number;
}

export interface ParsedDiff {
  readonly files: readonly DiffFile[];
  readonly additions: number;
  readonly deletions: number;
}

interface FileDraft {
  git?: GitHeaderPaths;
  oldPath?: string;
  newPath?: string;
  renameFrom?: string;
  renameTo?: string;
  copyFrom?: string;
  copyTo?: string;
  created: boolean;
  removed: boolean;
  binary: boolean;
  oldMode?: string;
  newMode?: string;
  additions: number;
  deletions: number;
  hunks: number;
  incomplete: boolean;
  start: number;
}

const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;
const DEV_NULL = "/dev/null";

const CHAR_PLUS = 0x2b;
const CHAR_MINUS = 0x2d;
const CHAR_SPACE = 0x20;
const CHAR_BACKSLASH = 0x5c;
const CHAR_CR = 0x0d;

function newDraft(start: number): FileDraft {
  return {
    created: false,
    removed: false,
    binary: false,
    additions: 0,
    deletions: 0,
    hunks: 0,
    incomplete: false,
    start,
  };
}

/** The value after a header keyword, without the line's CR. */
function after(line: string, keyword: string): string {
  return line.slice(keyword.length);
}

function sidePath(field: string, draft: FileDraft): string | undefined {
  const path = headerPath(field);
  if (path === DEV_NULL) return undefined;
  return stripSidePrefix(path, draft.git?.prefixed ?? /^[ab]\//.test(path));
}

function statusOf(draft: FileDraft): DiffFileStatus {
  if (draft.created) return "added";
  if (draft.removed) return "deleted";
  if (draft.renameFrom !== undefined || draft.renameTo !== undefined) return "renamed";
  if (draft.copyFrom !== undefined || draft.copyTo !== undefined) return "copied";
  return "modified";
}

function finish(draft: FileDraft, end: number): DiffFile | undefined {
  const status = statusOf(draft);
  const newName = draft.renameTo ?? draft.copyTo ?? draft.newPath ?? draft.git?.new;
  const oldName = draft.renameFrom ?? draft.copyFrom ?? draft.oldPath ?? draft.git?.old;
  const path = status === "deleted" ? (oldName ?? newName) : (newName ?? oldName);
  if (path === undefined) return undefined;
  const moved = status === "renamed" || status === "copied";
  return {
    path,
    ...(moved && oldName !== undefined ? { previousPath: oldName } : {}),
    status,
    additions: draft.additions,
    deletions: draft.deletions,
    binary: draft.binary,
    ...(draft.oldMode !== undefined ? { oldMode: draft.oldMode } : {}),
    ...(draft.newMode !== undefined ? { newMode: draft.newMode } : {}),
    hunks: draft.hunks,
    incomplete: draft.incomplete,
    start: draft.start,
    end,
  };
}

/** Applies one header line (outside a hunk) to the file it belongs to. */
function applyHeader(draft: FileDraft, line: string): void {
  if (line.startsWith("new file mode ")) {
    draft.created = true;
    draft.newMode = after(line, "new file mode ");
  } else if (line.startsWith("deleted file mode ")) {
    draft.removed = true;
    draft.oldMode = after(line, "deleted file mode ");
  } else if (line.startsWith("old mode ")) draft.oldMode = after(line, "old mode ");
  else if (line.startsWith("new mode ")) draft.newMode = after(line, "new mode ");
  else if (line.startsWith("rename from ")) draft.renameFrom = headerPath(after(line, "rename from "));
  else if (line.startsWith("rename to ")) draft.renameTo = headerPath(after(line, "rename to "));
  else if (line.startsWith("copy from ")) draft.copyFrom = headerPath(after(line, "copy from "));
  else if (line.startsWith("copy to ")) draft.copyTo = headerPath(after(line, "copy to "));
  else if (line.startsWith("Binary files ") || line.startsWith("GIT binary patch")) draft.binary = true;
  // `index …`, `similarity index`, `dissimilarity index` and anything unknown say nothing we keep.
}

interface ParseState {
  readonly text: string;
  readonly files: DiffFile[];
  additions: number;
  deletions: number;
  draft: FileDraft | undefined;
  oldLeft: number;
  newLeft: number;
  inBinaryPatch: boolean;
}

function close(state: ParseState, end: number): void {
  if (!state.draft) return;
  const file = finish(state.draft, end);
  if (file) {
    state.files.push(file);
    state.additions += file.additions;
    state.deletions += file.deletions;
  }
  state.draft = undefined;
}

/**
 * One line inside a hunk: only its first character matters, and no slice of it is taken. Answers
 * false when the hunk's header promised more lines than came (the line is then read as a header).
 */
function hunkLine(state: ParseState, draft: FileDraft, position: number, lineEnd: number): boolean {
  const first = state.text.charCodeAt(position);
  if (first === CHAR_PLUS && state.newLeft > 0) {
    draft.additions += 1;
    state.newLeft -= 1;
    return true;
  }
  if (first === CHAR_MINUS && state.oldLeft > 0) {
    draft.deletions += 1;
    state.oldLeft -= 1;
    return true;
  }
  const blank = lineEnd === position || (first === CHAR_CR && lineEnd === position + 1);
  if ((first === CHAR_SPACE || blank) && state.oldLeft > 0 && state.newLeft > 0) {
    state.oldLeft -= 1;
    state.newLeft -= 1;
    return true;
  }
  if (first === CHAR_BACKSLASH) return true;
  state.oldLeft = 0;
  state.newLeft = 0;
  return false;
}

/** One line outside a hunk: a new file, a header of the current one, or a hunk's start. */
function headerLine(state: ParseState, line: string, position: number, next: number): void {
  if (line.startsWith("diff --git ")) {
    close(state, position);
    const draft = newDraft(position);
    const paths = gitHeaderPaths(after(line, "diff --git "));
    if (paths) draft.git = paths;
    state.draft = draft;
    state.inBinaryPatch = false;
    return;
  }
  // literal/delta lines of a `GIT binary patch` run to the next file.
  if (state.inBinaryPatch) return;
  if (line.startsWith("--- ") && startsPlainFile(state.text, next, state.draft)) {
    close(state, position);
    const draft = newDraft(position);
    draft.oldPath = sidePath(after(line, "--- "), draft);
    if (draft.oldPath === undefined) draft.created = true;
    state.draft = draft;
    return;
  }
  const draft = state.draft;
  if (!draft) return;
  if (line.startsWith("--- ")) {
    const oldPath = sidePath(after(line, "--- "), draft);
    if (oldPath === undefined) draft.created = true;
    else draft.oldPath = oldPath;
  } else if (line.startsWith("+++ ")) {
    const newPath = sidePath(after(line, "+++ "), draft);
    if (newPath === undefined) draft.removed = true;
    else draft.newPath = newPath;
  } else if (line.startsWith("@@ ")) {
    const hunk = HUNK_HEADER.exec(line);
    if (!hunk) return;
    draft.hunks += 1;
    state.oldLeft = hunk[2] === undefined ? 1 : Number(hunk[2]);
    state.newLeft = hunk[4] === undefined ? 1 : Number(hunk[4]);
  } else {
    if (line.startsWith("GIT binary patch")) state.inBinaryPatch = true;
    applyHeader(draft, line);
  }
}

/**
 * Parses a unified diff. Never throws: a line it cannot place is kept inside the current file's
 * section and counted as nothing.
 */
export function parseUnifiedDiff(text: string): ParsedDiff {
  const state: ParseState = {
    text,
    files: [],
    additions: 0,
    deletions: 0,
    draft: undefined,
    oldLeft: 0,
    newLeft: 0,
    inBinaryPatch: false,
  };
  let position = 0;
  while (position < text.length) {
    const newline = text.indexOf("\n", position);
    const lineEnd = newline === -1 ? text.length : newline;
    const next = newline === -1 ? text.length : newline + 1;
    const draft = state.draft;
    const inHunk = draft !== undefined && (state.oldLeft > 0 || state.newLeft > 0);
    if (!inHunk || !hunkLine(state, draft, position, lineEnd)) {
      headerLine(state, stripCr(text, position, lineEnd), position, next);
    }
    position = next;
  }
  if (state.draft && (state.oldLeft > 0 || state.newLeft > 0)) state.draft.incomplete = true;
  close(state, text.length);
  return { files: state.files, additions: state.additions, deletions: state.deletions };
}

function stripCr(text: string, start: number, end: number): string {
  return end > start && text.charCodeAt(end - 1) === CHAR_CR
    ? text.slice(start, end - 1)
    : text.slice(start, end);
}

/**
 * A `---` line opens a new file of a plain unified diff (no `diff --git`) when the next line is
 * its `+++` and the current section, if any, already had a hunk (a git section's own `---` line,
 * before its first hunk, stays in it).
 */
function startsPlainFile(text: string, next: number, draft: FileDraft | undefined): boolean {
  if (!text.startsWith("+++ ", next)) return false;
  return !draft || draft.hunks > 0;
}

/** A file's patch: its section of the diff text, headers included. */
export function filePatch(text: string, file: Pick<DiffFile, "start" | "end">): string {
  return text.slice(file.start, file.end);
}
