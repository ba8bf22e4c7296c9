import * as childProcess from "node:child_process";
import { exec, execFileSync, fork, spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { PROCESS_STARTERS, UnitTestSpawnedAProcess } from "@t3-connector/test-support/no-processes-in-unit";
import { REPO_ROOT, repoFiles } from "@t3-connector/test-support/repo-files";
import { describe, expect, it } from "vitest";

// The unit tier's rules (ARCHITECTURE.md, "Tests"): one process, no build, and test support in one
// place (test/support) that every test imports by its name, @t3-connector/test-support/<module>.

describe("a unit test cannot start a process", () => {
  it.each([
    ["spawn", () => spawn("true")],
    ["spawnSync", () => spawnSync("true")],
    ["exec", () => exec("true")],
    ["execFileSync", () => execFileSync("git", ["ls-files"])],
    ["fork", () => fork("x.js")],
    ["spawn through the namespace", () => childProcess.spawn(process.execPath)],
    ["spawn through require", () => createRequire(import.meta.url)("node:child_process").spawn("true")],
  ])("%s throws and says where the test belongs", (_name, start) => {
    // By name: the setup file's copy of the module is not this test's.
    expect(start).toThrow(expect.objectContaining({ name: UnitTestSpawnedAProcess.name }));
    expect(start).toThrow(/the unit tier runs in one process; name the test file \*\.e2e\.test\.ts/);
  });

  it("covers every starter child_process has", () => {
    const starters = Object.keys(childProcess).filter((name) => /^(spawn|exec|fork)/.test(name));
    expect([...PROCESS_STARTERS].sort()).toEqual(starters.sort());
  });
});

/** A relative import that leaves its own package, or reaches test/support by path. */
function strayImports(): string[] {
  const stray: string[] = [];
  const tests = repoFiles("packages")
    .filter((file) => /^packages\/[^/]+\/test\//.test(file))
    .concat(repoFiles("test").filter((file) => !file.startsWith("test/support/")))
    .filter((file) => /\.(ts|mts)$/.test(file));
  const spec = /(?:from|import)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g;
  for (const file of tests) {
    const text = readFileSync(path.join(REPO_ROOT, file), "utf8");
    // A package's tests stay in their package; the root's tests (test/, bench/) out of packages/.
    const own = file.startsWith("packages/") ? `${file.split("/").slice(0, 2).join("/")}/` : undefined;
    // Comments are not imports.
    const code = text.replace(/^\s*\/\/.*$/gm, "");
    for (const match of code.matchAll(spec)) {
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), match[1] as string));
      const leaves = own === undefined ? target.startsWith("packages/") : !target.startsWith(own);
      const intoSupport = target.startsWith("test/support/");
      if (leaves || intoSupport) stray.push(`${file}: ${match[1]}`);
    }
  }
  return stray;
}

describe("test support is imported by name", () => {
  it("finds no test that imports another package's files, or test/support, by a relative path", () => {
    const stray = strayImports();
    expect(
      stray,
      `import it as @t3-connector/test-support/<module> (move shared support into test/support) or by the package's name:\n${stray.join("\n")}`,
    ).toEqual([]);
  });
});
