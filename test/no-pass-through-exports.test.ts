import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { ROOT } from "@t3-connector/test-support/architecture-map";
import ts from "typescript";
import { describe, expect, it } from "vitest";

// An importer names the module that defines what it imports (issue 44, ADR 0072): a source file
// that passes another module's names through (`export { x } from "…"`, or `export { x }` of an
// import) leaves a second address for one thing, which outlives the move that made it. Only a
// folder's `index.ts` (a package's entry points among them) and the engine's two lists of its
// public names (ADR 0027) gather names from other files.
const GATHERING = /(^|\/)index\.ts$|\/src\/(dispatch\/public-dispatch|journal\/public-journal)\.ts$/;

/** The names a file exports that another module defines, as `name (from where)`. */
function passThroughs(fileName: string, text: string): string[] {
  // Only an export list or a star can pass names through: most files need no parse.
  if (!/^export (type )?(\{|\*)/m.test(text)) return [];
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false);
  const imported = new Map<string, string>();
  for (const statement of source.statements) {
    const bindings = ts.isImportDeclaration(statement) ? statement.importClause?.namedBindings : undefined;
    if (bindings === undefined || !ts.isNamedImports(bindings)) continue;
    const from = (statement as ts.ImportDeclaration).moduleSpecifier as ts.StringLiteral;
    for (const element of bindings.elements) imported.set(element.name.text, from.text);
  }
  const found: string[] = [];
  for (const statement of source.statements) {
    if (!ts.isExportDeclaration(statement)) continue;
    const from = statement.moduleSpecifier as ts.StringLiteral | undefined;
    const clause = statement.exportClause;
    if (clause === undefined || ts.isNamespaceExport(clause)) {
      found.push(`* (${from?.text})`);
      continue;
    }
    for (const element of clause.elements) {
      const local = (element.propertyName ?? element.name).text;
      const origin = from?.text ?? imported.get(local);
      if (origin !== undefined) found.push(`${element.name.text} (${origin})`);
    }
  }
  return found;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith(".d.ts") ? [full] : [];
  });
}

describe("no pass-through exports", () => {
  it("no source file outside an index passes another module's names through", () => {
    const files = readdirSync(path.join(ROOT, "packages")).flatMap((pkg) => {
      const src = path.join(ROOT, "packages", pkg, "src");
      try {
        return sourceFiles(src);
      } catch {
        return [];
      }
    });
    expect(files.length).toBeGreaterThan(500);
    const found = files
      .map((file) => path.relative(ROOT, file))
      .filter((file) => !GATHERING.test(file))
      .flatMap((file) =>
        passThroughs(file, readFileSync(path.join(ROOT, file), "utf8")).map((name) => `${file}: ${name}`),
      );
    expect(found, found.join("\n")).toEqual([]);
  });

  it("finds a planted re-export, an exported import and a star, and leaves a file's own names alone", () => {
    const planted = [
      'export { checkCursor } from "@t3-connector/mcp-tools/read-answers";',
      'import { type CliIo, readAll } from "@t3-connector/core/cli-support";',
      "export type { CliIo };",
      'export * from "./paging.js";',
      "const own = 1;",
      "export { own };",
      "export function used(): typeof readAll { return readAll; }",
    ].join("\n");
    expect(passThroughs("planted.ts", planted)).toEqual([
      "checkCursor (@t3-connector/mcp-tools/read-answers)",
      "CliIo (@t3-connector/core/cli-support)",
      "* (./paging.js)",
    ]);
  });
});
