import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The repository's files as `git ls-files --cached --others --exclude-standard` would list them,
 * read from the file system in this process: the unit tier starts no process, `git` included
 * (test/support/no-processes-in-unit.ts). The root `.gitignore` is honoured in the forms it uses
 * (`name/`, `*.ext`, `prefix-*​/`), and `.git` is skipped. Paths are relative, with `/`.
 */

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

function ignoreRules(): { pattern: RegExp; directoryOnly: boolean }[] {
  const text = readFileSync(path.join(REPO_ROOT, ".gitignore"), "utf8");
  return text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"))
    .map((line) => {
      const directoryOnly = line.endsWith("/");
      const glob = line.replace(/\/$/, "").replace(/^\//, "");
      const source = glob
        .split("*")
        .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
        .join("[^/]*");
      return { pattern: new RegExp(`^${source}$`), directoryOnly };
    });
}

/** Every file under `under` (default: the whole repository), ignored ones left out. */
export function repoFiles(under = ""): string[] {
  const rules = ignoreRules();
  const ignored = (name: string, isDirectory: boolean) =>
    name === ".git" || rules.some((rule) => (!rule.directoryOnly || isDirectory) && rule.pattern.test(name));
  const out: string[] = [];
  const walk = (relative: string) => {
    for (const entry of readdirSync(path.join(REPO_ROOT, relative), { withFileTypes: true })) {
      if (ignored(entry.name, entry.isDirectory())) continue;
      const child = relative === "" ? entry.name : `${relative}/${entry.name}`;
      if (entry.isDirectory()) walk(child);
      else if (entry.isFile()) out.push(child);
    }
  };
  walk(under);
  return out.sort();
}
