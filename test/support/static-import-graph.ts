import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { ROOT } from "./architecture-map.js";

/**
 * What a process loads before it runs anything, read from the sources (the unit tier has no
 * build): every file reached from the entries through static imports, and the outside packages
 * those files import. `import()` is where a process chooses to load later, so it is not
 * followed; `import type` is erased by the compiler. Under `verbatimModuleSyntax` an
 * `import { type A } from "x"` still loads "x" at run time, so it counts.
 */
export interface StaticGraph {
  /** Repository-relative paths of the workspace files reached, entries included. */
  readonly files: ReadonlySet<string>;
  /** Outside packages imported by a reached file (`hono`, `@hono/node-server`, `ws`…), with one importer each. */
  readonly packages: ReadonlyMap<string, string>;
}

const SCOPE = "@t3-connector/";

export function staticImportGraph(entries: readonly string[]): StaticGraph {
  const files = new Set<string>();
  const packages = new Map<string, string>();
  const stack = entries.map((entry) => path.join(ROOT, entry));
  while (stack.length > 0) {
    const file = stack.pop() as string;
    const relative = path.relative(ROOT, file);
    if (files.has(relative)) continue;
    if (!existsSync(file)) throw new Error(`static-import-graph: ${relative} does not exist`);
    files.add(relative);
    for (const specifier of runtimeImportsOf(file)) {
      if (specifier.startsWith("node:") || specifier.endsWith(".json")) continue;
      if (specifier.startsWith(".")) stack.push(sourceOf(path.resolve(path.dirname(file), specifier)));
      else if (specifier.startsWith(SCOPE)) stack.push(workspaceEntry(specifier));
      else {
        const parts = specifier.split("/");
        const name = specifier.startsWith("@") ? parts.slice(0, 2).join("/") : (parts[0] ?? specifier);
        if (!packages.has(name)) packages.set(name, relative);
      }
    }
  }
  return { files, packages };
}

/** The specifiers a compiled file still imports when it runs (static imports and re-exports). */
function runtimeImportsOf(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, false);
  const found: string[] = [];
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement) && statement.importClause?.isTypeOnly !== true) {
      if (ts.isStringLiteral(statement.moduleSpecifier)) found.push(statement.moduleSpecifier.text);
    } else if (ts.isExportDeclaration(statement) && !statement.isTypeOnly && statement.moduleSpecifier) {
      if (ts.isStringLiteral(statement.moduleSpecifier)) found.push(statement.moduleSpecifier.text);
    }
  }
  return found;
}

/** `x.js` as written in an import → the `x.ts` it was compiled from. */
function sourceOf(resolved: string): string {
  return resolved.replace(/\.js$/, ".ts");
}

/** `@t3-connector/<pkg>[/<entry>]` → the source of the file its exports map names. */
function workspaceEntry(specifier: string): string {
  const [pkg = "", ...rest] = specifier.slice(SCOPE.length).split("/");
  const dir = path.join(ROOT, "packages", pkg);
  const manifest = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")) as {
    exports?: Record<string, { default?: string }>;
  };
  const key = rest.length === 0 ? "." : `./${rest.join("/")}`;
  const target = manifest.exports?.[key]?.default;
  if (target === undefined)
    throw new Error(`static-import-graph: ${specifier} is not in ${pkg}'s exports map`);
  return path.join(dir, sourceOf(target.replace(/^\.\/dist\//, "./src/")));
}
