/**
 * The audit log's hash chain (ADR 0006 §15). Every line is a JSON object ending in two fields:
 * `prev`, the `hash` of the line before (for the first line, 64 zeros; for the first line after
 * lines written before the chain existed, the SHA-256 of those lines' bytes), and `hash`, the
 * SHA-256 of the line's own JSON without `hash`. A line edited, removed or inserted breaks the
 * chain at that place; the journal's identity marker keeps an anchor (line count and last hash) so
 * lines cut from the end before the last gate start or stop are noticed too.
 */
import { sha256Hex } from "@t3-connector/core";
import type { AuditAnchor } from "@t3-connector/write-engine/engine";

export const GENESIS = "0".repeat(64);

/** The line for `fields` chained after `prev`: its text (no newline) and its hash. */
export function chainedLine(fields: Record<string, unknown>, prev: string): { text: string; hash: string } {
  const body = JSON.stringify({ ...fields, prev });
  const hash = sha256Hex(body);
  return { text: `${body.slice(0, -1)},"hash":"${hash}"}`, hash };
}

export interface AuditCheck {
  status: "missing" | "intact" | "damaged";
  /** What is wrong, one sentence per problem (empty when intact). */
  problems: string[];
  /** Complete lines (those written before the chain included). */
  lines: number;
  /** What the next line's `prev` must be: the last line's hash (GENESIS, or the unchained lines' SHA-256, when none is chained). */
  head: string;
  /** Lines written before the chain existed, when no chained line follows them yet. */
  unchained: number;
  /** Bytes of complete lines: a torn last line (a crash inside an append) starts here. */
  completeBytes: number;
  torn: boolean;
  /** The highest journal generation a line recorded. */
  journalGeneration: number | null;
  /** When the first line was written (epoch ms). */
  firstAt: number | null;
  /** Each complete line's hash (null for lines before the chain): what an anchor is checked against. */
  hashes: Array<string | null>;
  /** The parsed lines, in order. */
  entries: Array<Record<string, unknown>>;
}

/** Check the text of an audit log (null: the file does not exist). */
export function checkAuditText(text: string | null): AuditCheck {
  const result: AuditCheck = {
    status: "intact",
    problems: [],
    lines: 0,
    head: GENESIS,
    unchained: 0,
    completeBytes: 0,
    torn: false,
    journalGeneration: null,
    firstAt: null,
    hashes: [],
    entries: [],
  };
  if (text === null) return { ...result, status: "missing" };
  const end = text.lastIndexOf("\n") + 1;
  const complete = text.slice(0, end);
  result.completeBytes = Buffer.byteLength(complete);
  result.torn = end < text.length;
  const lines = complete === "" ? [] : complete.slice(0, -1).split("\n");
  let legacyText = "";
  let chained = false;
  for (const [index, line] of lines.entries()) {
    const number = index + 1;
    let value: Record<string, unknown>;
    try {
      value = JSON.parse(line) as Record<string, unknown>;
      if (typeof value !== "object" || value === null || Array.isArray(value))
        throw new Error("not an object");
    } catch {
      result.problems.push(`line ${number} is not a JSON object (edited or corrupted)`);
      break;
    }
    result.entries.push(value);
    if (result.firstAt === null && typeof value.at === "string") result.firstAt = Date.parse(value.at);
    if (!("prev" in value) && !("hash" in value)) {
      if (chained) {
        result.problems.push(`line ${number} carries no chain hash after chained lines (inserted or edited)`);
        break;
      }
      legacyText += `${line}\n`;
      result.hashes.push(null);
      continue;
    }
    const { hash, ...rest } = value;
    const expectedPrev = chained ? result.head : legacyText === "" ? GENESIS : sha256Hex(legacyText);
    if (typeof hash !== "string" || sha256Hex(JSON.stringify(rest)) !== hash) {
      result.problems.push(`line ${number} does not match its own hash (edited)`);
      break;
    }
    if (rest.prev !== expectedPrev) {
      result.problems.push(
        `line ${number} does not follow the line before it (a line before it was removed, inserted or edited)`,
      );
      break;
    }
    chained = true;
    result.head = hash;
    result.hashes.push(hash);
    if (typeof rest.journal === "number") {
      result.journalGeneration = Math.max(result.journalGeneration ?? 0, rest.journal);
    }
  }
  result.lines = lines.length;
  result.unchained = chained ? 0 : result.hashes.length;
  // Only lines from before the chain: the first chained line must cover their bytes.
  if (!chained && legacyText !== "") result.head = sha256Hex(legacyText);
  if (result.problems.length > 0) result.status = "damaged";
  return result;
}

/** What is wrong with `check` against the anchor the journal's marker recorded, if anything. */
export function anchorProblem(check: AuditCheck, anchor: AuditAnchor | null): string | null {
  if (anchor === null || anchor.lines === 0) return null;
  const where = "the journal's identity file recorded at the last gate start or stop";
  if (check.status === "missing") return `it is missing, but ${where} ${anchor.lines} line(s)`;
  if (check.lines < anchor.lines) {
    return `it has ${check.lines} line(s), but ${where} ${anchor.lines}: lines were removed from its end`;
  }
  if (check.hashes[anchor.lines - 1] !== anchor.head) {
    return `line ${anchor.lines} is not the line ${where} (edited or replaced)`;
  }
  return null;
}
