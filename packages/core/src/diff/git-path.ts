/**
 * Paths as git prints them in a diff's headers: plain, or C-quoted ("a/t\303\251st") when a path
 * holds a byte git will not print bare (a quote, a backslash, a control byte, non-ASCII unless
 * `core.quotePath` is off). The quoted form is octal escapes of UTF-8 bytes.
 */

const SIMPLE_ESCAPES: Readonly<Record<string, number>> = {
  a: 0x07,
  b: 0x08,
  f: 0x0c,
  n: 0x0a,
  r: 0x0d,
  t: 0x09,
  v: 0x0b,
  '"': 0x22,
  "\\": 0x5c,
};

const UTF8 = new TextDecoder("utf-8", { fatal: false });
const ENCODER = new TextEncoder();

/**
 * Reads one C-quoted token that starts at `from` (on the opening quote). Answers the decoded
 * text and the index just past the closing quote, or undefined when the quote never closes.
 */
export function readQuoted(text: string, from: number): { value: string; next: number } | undefined {
  const bytes: number[] = [];
  let index = from + 1;
  while (index < text.length) {
    const char = String.fromCodePoint(text.codePointAt(index) as number);
    if (char === '"') return { value: UTF8.decode(Uint8Array.from(bytes)), next: index + 1 };
    if (char !== "\\") {
      for (const byte of ENCODER.encode(char)) bytes.push(byte);
      index += char.length;
      continue;
    }
    const escaped = text[index + 1];
    if (escaped === undefined) return undefined;
    const octal = /^[0-7]{3}/.exec(text.slice(index + 1, index + 4));
    if (octal) {
      bytes.push(Number.parseInt(octal[0], 8) & 0xff);
      index += 4;
      continue;
    }
    bytes.push(SIMPLE_ESCAPES[escaped] ?? escaped.charCodeAt(0));
    index += 2;
  }
  return undefined;
}

/** A header's path field: a quoted token is decoded; a plain one runs to the end (or a tab). */
export function headerPath(field: string): string {
  if (field.startsWith('"')) return readQuoted(field, 0)?.value ?? field;
  // GNU diff may append "\t<timestamp>" after the name; git never puts a tab in a bare name.
  const tab = field.indexOf("\t");
  return tab === -1 ? field : field.slice(0, tab);
}

/**
 * A side's prefix: git's default `a/`/`b/`, or one of the mnemonic prefixes (`c/ w/ i/ o/`,
 * `diff.mnemonicPrefix`). A diff made with `--no-prefix` has none, which the caller learns by
 * comparing the two sides of `diff --git`.
 */
const PREFIXED = /^[abciwo12]\//;

export function stripSidePrefix(path: string, hasPrefix: boolean): string {
  return hasPrefix && PREFIXED.test(path) ? path.slice(2) : path;
}

export interface GitHeaderPaths {
  readonly old: string;
  readonly new: string;
  /** Both sides carried a one-letter prefix (`a/ b/`): strip it from the other headers too. */
  readonly prefixed: boolean;
}

/**
 * The two paths of `diff --git <old> <new>`. Bare names with spaces are ambiguous, so the line
 * is split where both halves name the same file (the usual case: no rename), else at the first
 * " b/"; the `---`/`+++` and `rename` lines, when present, win over this guess.
 */
export function gitHeaderPaths(rest: string): GitHeaderPaths | undefined {
  let oldSide: string;
  let newSide: string;
  if (rest.startsWith('"')) {
    const first = readQuoted(rest, 0);
    if (!first || rest[first.next] !== " ") return undefined;
    oldSide = first.value;
    newSide = headerPath(rest.slice(first.next + 1));
  } else {
    const split = splitBareHeader(rest);
    if (!split) return undefined;
    [oldSide, newSide] = split;
  }
  const prefixed = PREFIXED.test(oldSide) && PREFIXED.test(newSide);
  return {
    old: stripSidePrefix(oldSide, prefixed),
    new: stripSidePrefix(newSide, prefixed),
    prefixed,
  };
}

function splitBareHeader(rest: string): [string, string] | undefined {
  const quotedNew = rest.indexOf(' "');
  if (quotedNew !== -1 && rest.endsWith('"')) {
    return [rest.slice(0, quotedNew), headerPath(rest.slice(quotedNew + 1))];
  }
  if (rest.length % 2 === 1) {
    const half = (rest.length - 1) / 2;
    const left = rest.slice(0, half);
    const right = rest.slice(half + 1);
    if (rest[half] === " " && left.slice(2) === right.slice(2)) return [left, right];
  }
  const cut = rest.indexOf(" b/");
  if (cut !== -1) return [rest.slice(0, cut), rest.slice(cut + 1)];
  const space = rest.indexOf(" ");
  return space === -1 ? undefined : [rest.slice(0, space), rest.slice(space + 1)];
}
