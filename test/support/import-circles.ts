import { existsSync } from "node:fs";
import path from "node:path";
import { crossingCheckedFiles, importsOfFile, ROOT } from "./architecture-map.js";

/**
 * The import graph between the packages' source files (every import: static, `import type`,
 * `import()` and re-exports), and the circles in it. A circle is a set of files each reachable from
 * the others (a strongly connected component of two or more files, or a file that imports itself).
 */

export type ImportGraph = ReadonlyMap<string, ReadonlySet<string>>;

/** A relative specifier as written (`./x.js`, `../dir/index.js`, `./dir`) → the source file it names. */
function sourceFileOf(fromFile: string, specifier: string): string | undefined {
  const base = path.posix.join(path.posix.dirname(fromFile), specifier);
  const candidates = [
    base.replace(/\.js$/, ".ts"),
    base.replace(/\.mjs$/, ".mts"),
    base,
    `${base}.ts`,
    `${base}/index.ts`,
  ];
  return candidates.find((candidate) => existsSync(path.join(ROOT, candidate)));
}

/** Every source file of packages/*\/src and scripts, with the files of the repository it imports by path. */
export function sourceImportGraph(): ImportGraph {
  const graph = new Map<string, Set<string>>();
  for (const file of crossingCheckedFiles()) {
    const targets = new Set<string>();
    for (const { specifier } of importsOfFile(path.join(ROOT, file))) {
      if (!specifier.startsWith(".")) continue;
      const target = sourceFileOf(file, path.posix.normalize(specifier));
      if (target !== undefined) targets.add(path.posix.normalize(target));
    }
    graph.set(file, targets);
  }
  return graph;
}

/** The circles of `graph`, each sorted, in a stable order (Tarjan's strongly connected components). */
export function importCircles(graph: ImportGraph): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, counter);
    low.set(file, counter);
    counter += 1;
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file) as number, low.get(next) as number));
      } else if (onStack.has(next)) {
        low.set(file, Math.min(low.get(file) as number, index.get(next) as number));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop() as string;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || graph.get(file)?.has(file) === true) circles.push(component.sort());
  };
  for (const file of [...graph.keys()].sort()) if (!index.has(file)) visit(file);
  return circles.sort((a, b) => (a[0] ?? "").localeCompare(b[0] ?? ""));
}

/** One circle as a reader fixes it: each file and what it imports of the others. */
export function describeCircle(graph: ImportGraph, circle: readonly string[]): string {
  const lines = circle.map(
    (file) =>
      `  ${file} imports ${[...(graph.get(file) ?? [])].filter((other) => circle.includes(other)).join(", ")}`,
  );
  return `a circle of ${circle.length} files (move what both sides need to a module both can import):\n${lines.join("\n")}`;
}
