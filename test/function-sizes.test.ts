import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { repoFiles } from "@t3-connector/test-support/repo-files";
import ts from "typescript";
import { describe, expect, it } from "vitest";

// Long functions are where the write path became hard to follow. Every function in product source
// stays at most LIMIT lines; the few that are longer today are named below with their size, and may
// only shrink (the list is a ratchet: shorten one, then lower or remove its entry). Lines are
// counted from the function's first to its last line, comments included, as a reader scrolls them.

const LIMIT = 80;
const NEVER_OVER = 120;

/** Today's exceptions: `file:function` → lines. Shrink them; never add one. */
const KNOWN_LONG: Readonly<Record<string, number>> = {};

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

function productSources(): string[] {
  return repoFiles("packages").filter((file) => /^packages\/[^/]+\/src\/.*\.ts$/.test(file));
}

function nameOf(node: ts.FunctionLikeDeclaration): string {
  if (node.name !== undefined) return node.name.getText();
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) return parent.name.getText();
  return "(anonymous)";
}

/** Every function, method and arrow longer than LIMIT lines, keyed `file:name`, with its length. */
function longFunctions(): Map<string, number> {
  const found = new Map<string, number>();
  for (const file of productSources()) {
    const source = ts.createSourceFile(
      file,
      readFileSync(path.join(root, file), "utf8"),
      ts.ScriptTarget.Latest,
      true,
    );
    const visit = (node: ts.Node): void => {
      if (
        ts.isFunctionDeclaration(node) ||
        ts.isMethodDeclaration(node) ||
        ts.isArrowFunction(node) ||
        ts.isFunctionExpression(node)
      ) {
        const first = source.getLineAndCharacterOfPosition(node.getStart()).line;
        const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
        const lines = last - first + 1;
        if (lines > LIMIT) {
          const key = `${file}:${nameOf(node)}`;
          found.set(key, Math.max(lines, found.get(key) ?? 0));
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

describe("function sizes in product source", () => {
  const long = longFunctions();

  it(`has no function over ${LIMIT} lines beyond the named exceptions, and none of those grew`, () => {
    const offenders = [...long]
      .filter(([key, lines]) => lines > (KNOWN_LONG[key] ?? LIMIT))
      .map(([key, lines]) => `${key} has ${lines} lines (allowed: ${KNOWN_LONG[key] ?? LIMIT})`);
    expect(offenders).toEqual([]);
  });

  it(`lists no exception that is already ${LIMIT} lines or shorter (lower the ratchet)`, () => {
    const stale = Object.keys(KNOWN_LONG).filter((key) => !long.has(key));
    expect(stale).toEqual([]);
  });

  it(`keeps every exception at most ${NEVER_OVER} lines once it has been shortened`, () => {
    // Exceptions above NEVER_OVER are today's debt; a new or re-listed one must stay under it.
    const overTheCap = Object.entries(KNOWN_LONG).filter(([, lines]) => lines > NEVER_OVER);
    expect(overTheCap.length).toBeLessThanOrEqual(8);
  });
});
