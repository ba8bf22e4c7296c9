import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

/**
 * ARCHITECTURE.md's package and import-edge tables read as data, each package's real imports of
 * the others read from its sources, and what Biome must refuse derived from the table, so that
 * `test/architecture-map.test.ts` can say exactly which line of the map, the code, a package.json
 * or biome.json has to change when they disagree.
 */

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const SCOPE = "@t3-connector/";
/** The MCP SDK's packages (v2 is split into server, client, core, node, hono). */
const MCP_SCOPE = "@modelcontextprotocol/";

export type How = "static" | "dynamic";

/** One documented or real edge: `from` imports `to` through these entries (`.` is the root). */
export interface Edge {
  from: string;
  to: string;
  /** Entry names, or "any" (core: every folder is an entry). */
  entries: ReadonlySet<string> | "any";
  how: ReadonlySet<How>;
}

/** Where a real import was seen, to name it in a failure. */
export interface RealEdge extends Edge {
  seenAt: readonly string[];
}

export const key = (from: string, to: string) => `${from} → ${to}`;

export function workspacePackages(): string[] {
  return readdirSync(path.join(ROOT, "packages"), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

function tableAfter(markdown: string, heading: string): string[][] {
  const lines = markdown.split("\n");
  const start = lines.findIndex((line) => line.trim() === heading);
  if (start < 0) throw new Error(`ARCHITECTURE.md has no "${heading}" heading`);
  const rows: string[][] = [];
  let inTable = false;
  for (const line of lines.slice(start + 1)) {
    if (line.startsWith("#")) break;
    if (!line.startsWith("|")) {
      if (inTable) break;
      continue;
    }
    inTable = true;
    rows.push(
      line
        .slice(1, line.lastIndexOf("|"))
        .split("|")
        .map((cell) => cell.trim()),
    );
  }
  // Header and the `---` separator.
  return rows.slice(2);
}

const unquote = (cell: string) => cell.replaceAll("`", "").trim();

/** The packages named in the first column of "## Packages and what each may import". */
export function documentedPackages(markdown: string): string[] {
  return tableAfter(markdown, "## Packages and what each may import")
    .map((row) => unquote(row[0] ?? ""))
    .sort();
}

/** The rows of "### Import edges": from | to | entries | how. */
export function documentedEdges(markdown: string): Edge[] {
  return tableAfter(markdown, "### Import edges").map(([from = "", to = "", entries = "", how = ""]) => ({
    from: unquote(from),
    to: unquote(to),
    entries:
      entries.trim() === "any"
        ? "any"
        : new Set(
            entries
              .split(",")
              .map(unquote)
              .filter((entry) => entry !== ""),
          ),
    how: new Set<How>([
      ...(how.includes("static") ? (["static"] as const) : []),
      ...(how.includes("import()") ? (["dynamic"] as const) : []),
    ]),
  }));
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(full));
    else if (/\.(ts|mts|js|mjs)$/.test(entry.name) && !entry.name.endsWith(".d.ts")) out.push(full);
  }
  return out;
}

/** Every module specifier of a file, with whether it is a dynamic `import()`. */
export function importsOf(fileName: string, text: string): { specifier: string; how: How; line: number }[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const found: { specifier: string; how: How; line: number }[] = [];
  const add = (literal: ts.Expression | undefined, how: How) => {
    if (literal === undefined || !ts.isStringLiteralLike(literal)) return;
    const line = source.getLineAndCharacterOfPosition(literal.getStart()).line + 1;
    found.push({ specifier: literal.text, how, line });
  };
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) add(node.moduleSpecifier, "static");
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      add(node.moduleReference.expression, "static");
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      add(node.arguments[0], "dynamic");
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      add(node.argument.literal as ts.Expression, "static");
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/**
 * Every module specifier of a file with its line, static, `import type` and `import()` alike, from
 * TypeScript's import scanner (no syntax tree: the crossing and circle checks read every source).
 */
export function specifiersOf(text: string): { specifier: string; line: number }[] {
  const { importedFiles } = ts.preProcessFile(text, true, true);
  const newlines: number[] = [];
  for (let at = text.indexOf("\n"); at >= 0; at = text.indexOf("\n", at + 1)) newlines.push(at);
  const lineOf = (pos: number) => newlines.filter((at) => at < pos).length + 1;
  return importedFiles.map((imported) => ({ specifier: imported.fileName, line: lineOf(imported.pos) }));
}

const importsByFile = new Map<string, { specifier: string; line: number }[]>();
/** `specifiersOf` a file on disk, scanned once per test file however many checks read it. */
export function importsOfFile(absolute: string): { specifier: string; line: number }[] {
  const known = importsByFile.get(absolute);
  if (known !== undefined) return known;
  const found = specifiersOf(readFileSync(absolute, "utf8"));
  importsByFile.set(absolute, found);
  return found;
}

/** What `packages/<from>/src` really imports of the other workspace packages. */
export function realEdges(packages: readonly string[]): RealEdge[] {
  const edges = new Map<
    string,
    { from: string; to: string; entries: Set<string>; how: Set<How>; seenAt: string[] }
  >();
  for (const from of packages) {
    const src = path.join(ROOT, "packages", from, "src");
    for (const file of sourceFiles(src)) {
      const relative = path.relative(ROOT, file);
      for (const { specifier, how, line } of importsOf(file, readFileSync(file, "utf8"))) {
        if (!specifier.startsWith(SCOPE)) continue;
        const [to = "", ...rest] = specifier.slice(SCOPE.length).split("/");
        if (to === from) continue;
        const edge = edges.get(key(from, to)) ?? {
          from,
          to,
          entries: new Set<string>(),
          how: new Set<How>(),
          seenAt: [],
        };
        edge.entries.add(rest.length === 0 ? "." : rest.join("/"));
        edge.how.add(how);
        edge.seenAt.push(`${relative}:${line}`);
        edges.set(key(from, to), edge);
      }
    }
  }
  return [...edges.values()];
}

interface PackageJson {
  dependencies?: Record<string, string>;
  exports?: Record<string, unknown>;
}

export function packageJson(name: string): PackageJson {
  return JSON.parse(readFileSync(path.join(ROOT, "packages", name, "package.json"), "utf8")) as PackageJson;
}

/** The workspace packages a package's `dependencies` (not devDependencies) name. */
export function dependencyPackages(name: string): string[] {
  return Object.keys(packageJson(name).dependencies ?? {})
    .filter((dependency) => dependency.startsWith(SCOPE))
    .map((dependency) => dependency.slice(SCOPE.length))
    .sort();
}

const sorted = (values: Iterable<string>) => [...values].sort().join(", ");
const describeEntries = (entries: Edge["entries"]) =>
  entries === "any"
    ? "any"
    : [...entries]
        .sort()
        .map((entry) => `\`${entry}\``)
        .join(", ");
const describeHow = (how: ReadonlySet<How>) =>
  [...(how.has("static") ? ["static"] : []), ...(how.has("dynamic") ? ["dynamic `import()`"] : [])].join(
    ", ",
  );

/** The table row that documents an edge, as a reader would paste it. */
export const rowFor = (edge: Edge) =>
  `| \`${edge.from}\` | \`${edge.to}\` | ${describeEntries(edge.entries)} | ${describeHow(edge.how)} |`;

/** Every disagreement between the documented edges and the real ones, each saying what to change. */
export function edgeProblems(documented: readonly Edge[], real: readonly RealEdge[]): string[] {
  const problems: string[] = [];
  const table = 'ARCHITECTURE.md, "### Import edges"';
  const byKey = new Map(documented.map((edge) => [key(edge.from, edge.to), edge]));
  const realByKey = new Map(real.map((edge) => [key(edge.from, edge.to), edge]));
  for (const edge of real) {
    const doc = byKey.get(key(edge.from, edge.to));
    const where = edge.seenAt.slice(0, 3).join(", ");
    if (doc === undefined) {
      problems.push(
        `${edge.from} imports @t3-connector/${edge.to} (${where}) but ${table} has no ${key(edge.from, edge.to)} row: ` +
          `add the row ${rowFor(edge)} (or remove the import)`,
      );
      continue;
    }
    if (doc.entries !== "any" && sorted(doc.entries) !== sorted(edge.entries)) {
      problems.push(
        `${key(edge.from, edge.to)} uses the entries ${describeEntries(edge.entries)} (${where}) but ${table} ` +
          `says ${describeEntries(doc.entries)}: change that row to ${rowFor({ ...edge, entries: edge.entries })}`,
      );
    }
    if (sorted(doc.how) !== sorted(edge.how)) {
      problems.push(
        `${key(edge.from, edge.to)} is imported ${describeHow(edge.how)} (${where}) but ${table} says ` +
          `${describeHow(doc.how)}: change that row's "how" to ${describeHow(edge.how)}`,
      );
    }
  }
  for (const edge of documented) {
    if (!realByKey.has(key(edge.from, edge.to))) {
      problems.push(
        `${table} has the row ${key(edge.from, edge.to)} but packages/${edge.from}/src imports nothing of ` +
          `@t3-connector/${edge.to}: remove the row ${rowFor(edge)}`,
      );
    }
  }
  return problems;
}

/** A package's `package.json` dependencies against its documented edges. */
export function dependencyProblems(
  name: string,
  documented: readonly Edge[],
  dependencies: readonly string[],
) {
  const problems: string[] = [];
  const edgesTo = new Set(documented.filter((edge) => edge.from === name).map((edge) => edge.to));
  for (const to of dependencies) {
    if (!edgesTo.has(to)) {
      problems.push(
        `packages/${name}/package.json lists @t3-connector/${to} in dependencies but ARCHITECTURE.md's import ` +
          `edges have no ${key(name, to)} row: remove the dependency (a test-only use goes in devDependencies) or add the row`,
      );
    }
  }
  for (const to of edgesTo) {
    if (!dependencies.includes(to)) {
      problems.push(
        `ARCHITECTURE.md documents ${key(name, to)} but packages/${name}/package.json does not list ` +
          `"@t3-connector/${to}": "workspace:*" in dependencies: add it`,
      );
    }
  }
  return problems;
}

/** One `noRestrictedImports` pattern of a package's override. */
export interface RestrictedPattern {
  group: string[];
  message: string;
}

/**
 * What Biome must refuse in `packages/<name>/src`: every package of ours without a row, the
 * entries a row does not list, and the MCP SDK unless the package's dependencies name it.
 */
export function expectedRestrictions(
  name: string,
  packages: readonly string[],
  documented: readonly Edge[],
): RestrictedPattern[] {
  const patterns: RestrictedPattern[] = [];
  for (const to of packages) {
    if (to === name) continue;
    const scoped = `${SCOPE}${to}`;
    const edge = documented.find((row) => row.from === name && row.to === to);
    if (edge === undefined) {
      patterns.push({
        group: [scoped, `${scoped}/**`],
        message: `${name} does not import ${to}: ARCHITECTURE.md's import edges have no ${key(name, to)} row (a new edge is a row there, a package.json dependency and this override, together).`,
      });
    } else if (edge.entries !== "any") {
      const allowed = [...edge.entries].sort();
      const group = [
        ...(allowed.includes(".") ? [] : [scoped]),
        `${scoped}/**`,
        ...allowed.filter((entry) => entry !== ".").map((entry) => `!${scoped}/${entry}`),
      ];
      patterns.push({
        group,
        message:
          `${name} imports ${to} only through ${allowed.join(", ")} (ARCHITECTURE.md's import edges` +
          (to === "write-engine"
            ? "; the journal and the dispatcher are the engine's own, ADR 0027)."
            : ")."),
      });
    }
  }
  if (
    !Object.keys(packageJson(name).dependencies ?? {}).some((dependency) => dependency.startsWith(MCP_SCOPE))
  ) {
    patterns.push({
      group: ["@modelcontextprotocol/*", "@modelcontextprotocol/**"],
      message: `${name} stays free of MCP: only mcp-tools, read-server and write-bridge speak it (ARCHITECTURE.md).`,
    });
  }
  return patterns;
}

/** The `biome.json` override that holds `name`'s row of the map. */
export function expectedOverride(name: string, packages: readonly string[], documented: readonly Edge[]) {
  return {
    includes: [`packages/${name}/src/**`],
    linter: {
      rules: {
        style: {
          noRestrictedImports: {
            level: "error",
            options: { patterns: expectedRestrictions(name, packages, documented) },
          },
        },
      },
    },
  };
}

/** The subpaths a package's `exports` declares, `.` for the root (`./config` → `config`). */
const exportsByPackage = new Map<string, Set<string>>();
export function declaredExports(name: string): Set<string> {
  const known = exportsByPackage.get(name);
  if (known !== undefined) return known;
  const declared = new Set(
    Object.keys(packageJson(name).exports ?? { ".": "" }).map((subpath) =>
      subpath === "." ? "." : subpath.replace(/^\.\//, ""),
    ),
  );
  exportsByPackage.set(name, declared);
  return declared;
}

/** The package folder a repository-relative path lies in (`packages/core/src/x.ts` → `core`). */
export function packageOfPath(relative: string): string | undefined {
  const match = /^packages\/([^/]+)\//.exec(relative);
  return match?.[1];
}

/** Where one import reaches into another package other than through its declared exports. */
export interface Crossing {
  /** `packages/read-server/src/x.ts:12` */
  at: string;
  specifier: string;
  problem: string;
}

/**
 * Every import of `relativeFile` (`importsOf` its text) that reaches into another package's folder other
 * than through a declared export: a relative path into another package (whatever file it names:
 * a package is reached by its name), or a package name whose subpath its `exports` do not declare.
 * A file outside packages/ belongs to no package, so every package is another.
 */
export function crossingsOf(
  relativeFile: string,
  imports: readonly { specifier: string; line: number }[],
  packages: readonly string[],
): Crossing[] {
  const owner = packageOfPath(relativeFile);
  const crossings: Crossing[] = [];
  for (const { specifier, line } of imports) {
    const at = `${relativeFile}:${line}`;
    if (specifier.startsWith(".")) {
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(relativeFile), specifier));
      const reached = packageOfPath(target);
      if (reached !== undefined && reached !== owner && packages.includes(reached)) {
        crossings.push({
          at,
          specifier,
          problem: `${at} imports ${target} by a relative path, a file of the ${reached} package: import @t3-connector/${reached} (or one of its declared exports) by name, as ARCHITECTURE.md's map allows`,
        });
      }
      continue;
    }
    if (!specifier.startsWith(SCOPE)) continue;
    const [name = "", ...rest] = specifier.slice(SCOPE.length).split("/");
    if (!packages.includes(name) || name === owner) continue;
    const subpath = rest.length === 0 ? "." : rest.join("/");
    if (!declaredExports(name).has(subpath)) {
      crossings.push({
        at,
        specifier,
        problem: `${at} imports ${specifier}, which packages/${name}/package.json does not export: import one of its declared exports (${[...declaredExports(name)].sort().join(", ")})`,
      });
    }
  }
  return crossings;
}

/**
 * The files the crossing check reads: every package's sources and scripts, what ships and runs.
 * Tests are white-box harnesses that may set up a package's internals (test/support/sim-gate.ts
 * builds the gate from its parts); the sources may not.
 */
export function crossingCheckedFiles(): string[] {
  return workspacePackages()
    .flatMap((name) => ["src", "scripts"].map((folder) => path.join(ROOT, "packages", name, folder)))
    .filter((root) => existsSync(root))
    .flatMap((root) => sourceFiles(root))
    .map((file) => path.relative(ROOT, file).split(path.sep).join("/"));
}

/** Every crossing in the checked files, read from disk. */
export function repoCrossings(packages: readonly string[]): Crossing[] {
  return crossingCheckedFiles().flatMap((file) =>
    crossingsOf(file, importsOfFile(path.join(ROOT, file)), packages),
  );
}
