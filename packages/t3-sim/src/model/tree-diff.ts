/**
 * `git diff --patch` between two simulated file trees, in git's own format (fixtures 121–123):
 * files in path order, `new file mode` / `deleted file mode`, an exact move as a 100% rename,
 * one hunk per changed file (common head and tail kept as up to three context lines), and the
 * per-file counts T3 stores on a checkpoint (`{path, kind: "modified", additions, deletions}`).
 */
import type { FileTree } from "./workspace-files.js";

export interface FileCount {
  path: string;
  kind: "modified";
  additions: number;
  deletions: number;
}

const CONTEXT = 3;

function shortHash(content: string | undefined): string {
  if (content === undefined) return "0000000";
  let hash = 0x811c9dc5;
  for (let index = 0; index < content.length; index += 1) {
    hash ^= content.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(16).padStart(8, "0").slice(0, 7);
}

function linesOf(content: string): string[] {
  if (content === "") return [];
  const lines = content.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

const range = (start: number, count: number): string =>
  count === 1 ? `${start}` : `${count === 0 ? Math.max(0, start - 1) : start},${count}`;

/** One hunk over the changed middle of two line lists; undefined when they are equal. */
function hunk(before: string, after: string): { text: string; additions: number; deletions: number } {
  const a = linesOf(before);
  const b = linesOf(after);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head += 1;
  let tail = 0;
  while (
    tail < a.length - head &&
    tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  )
    tail += 1;
  const from = Math.max(0, head - CONTEXT);
  const aEnd = Math.min(a.length, a.length - tail + CONTEXT);
  const bEnd = Math.min(b.length, b.length - tail + CONTEXT);
  const out: string[] = [];
  for (let index = from; index < head; index += 1) out.push(` ${a[index]}`);
  for (let index = head; index < a.length - tail; index += 1) out.push(`-${a[index]}`);
  if (before !== "" && !before.endsWith("\n") && tail === 0) out.push("\\ No newline at end of file");
  for (let index = head; index < b.length - tail; index += 1) out.push(`+${b[index]}`);
  if (after !== "" && !after.endsWith("\n") && tail === 0) out.push("\\ No newline at end of file");
  for (let index = b.length - tail; index < bEnd; index += 1) out.push(` ${b[index]}`);
  const oldCount = aEnd - from;
  const newCount = bEnd - from;
  const header = `@@ -${range(from + 1, oldCount)} +${range(from + 1, newCount)} @@`;
  return {
    text: `${header}\n${out.join("\n")}\n`,
    additions: b.length - tail - head,
    deletions: a.length - tail - head,
  };
}

export interface TreeDiff {
  diff: string;
  files: FileCount[];
}

/** The diff from `before` to `after`. */
export function diffTrees(before: FileTree, after: FileTree): TreeDiff {
  const removed = [...before.keys()].filter((path) => !after.has(path));
  const added = [...after.keys()].filter((path) => !before.has(path));
  // An exact move is a rename, as git's rename detection shows it (similarity 100%).
  const renamedFrom = new Map<string, string>();
  for (const path of added) {
    const source = removed.find(
      (candidate) => !renamedFrom.has(candidate) && before.get(candidate) === after.get(path),
    );
    if (source !== undefined) renamedFrom.set(source, path);
  }
  const renamedTo = new Map([...renamedFrom].map(([from, to]) => [to, from]));
  const paths = [...new Set([...before.keys(), ...after.keys()])]
    .filter((path) => !renamedFrom.has(path))
    .sort();
  const parts: string[] = [];
  const files: FileCount[] = [];
  for (const path of paths) {
    const old = before.get(path);
    const next = after.get(path);
    const source = renamedTo.get(path);
    if (source !== undefined) {
      parts.push(
        `diff --git a/${source} b/${path}\nsimilarity index 100%\nrename from ${source}\nrename to ${path}\n`,
      );
      files.push({ path, kind: "modified", additions: 0, deletions: 0 });
      continue;
    }
    if (old === next) continue;
    const body = hunk(old ?? "", next ?? "");
    let header = `diff --git a/${path} b/${path}\n`;
    if (old === undefined)
      header += `new file mode 100644\nindex 0000000..${shortHash(next)}\n--- /dev/null\n+++ b/${path}\n`;
    else if (next === undefined)
      header += `deleted file mode 100644\nindex ${shortHash(old)}..0000000\n--- a/${path}\n+++ /dev/null\n`;
    else header += `index ${shortHash(old)}..${shortHash(next)} 100644\n--- a/${path}\n+++ b/${path}\n`;
    parts.push(header + body.text);
    files.push({ path, kind: "modified", additions: body.additions, deletions: body.deletions });
  }
  return { diff: parts.join(""), files };
}
