/**
 * The benchmarks are plain scripts that load the built packages by path (`dist("core",
 * "t3/index.js")`, `../../packages/x/dist/…`), so no type check sees them: when a module moved
 * (the journal into write-engine) or a name was renamed (the relay header), `pnpm bench` broke
 * while every test passed. This reads each script's imports of our packages and checks, against
 * the sources the built files come from, that the module exists and exports every name taken
 * from it.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const repoRoot = fileURLToPath(new URL("../", import.meta.url));
const benchFiles = ["bench/", "bench/lib/"].flatMap((dir) =>
  readdirSync(new URL(`../${dir}`, import.meta.url))
    .filter((name) => name.endsWith(".mjs"))
    .map((name) => `${dir}${name}`),
);

interface PackageImport {
  /** `core`, `write-engine`, … */
  pkg: string;
  /** The built file, relative to the package's dist/ (`t3/index.js`). */
  file: string;
  /** The names taken from it; empty when the whole namespace is kept. */
  names: string[];
}

/** `{ a, b as c }` → `["a", "b"]`. */
function namesOf(braces: string): string[] {
  return braces
    .split(",")
    .map(
      (part) =>
        part
          .trim()
          .split(/\s+as\s+|\s*:\s*/)[0]
          ?.trim() ?? "",
    )
    .filter((name) => name.length > 0);
}

/** One loader call in a `Promise.all`: ours (`dist("pkg", "file")`) or another (`sdk("file")`). */
const LOADER_CALL = /(\w+)\(\s*"([^"]+)"(?:,\s*"([^"]+)")?\s*\)/g;

/** Every import of a built package in one script, in the three forms the scripts use. */
function packageImports(source: string): PackageImport[] {
  const found: PackageImport[] = [];
  // import { a } from "../../packages/core/dist/x.js"
  for (const m of source.matchAll(
    /import\s*\{([^}]*)\}\s*from\s*"(?:\.\.\/)+packages\/([^/]+)\/dist\/([^"]+)"/g,
  )) {
    found.push({ pkg: m[2] as string, file: m[3] as string, names: namesOf(m[1] as string) });
  }
  // const { a, b } = await dist("core", "x.js");
  for (const m of source.matchAll(/const\s*\{([^}]*)\}\s*=\s*await\s+dist\("([^"]+)",\s*"([^"]+)"\)/g)) {
    found.push({ pkg: m[2] as string, file: m[3] as string, names: namesOf(m[1] as string) });
  }
  // const [{ a }, ns, { b }] = await Promise.all([dist(…), dist(…), dist(…)]);
  for (const m of source.matchAll(/const\s*\[([\s\S]*?)\]\s*=\s*await\s+Promise\.all\(\[([\s\S]*?)\]\)/g)) {
    const targets = [...(m[1] as string).matchAll(/\{([^}]*)\}|([A-Za-z_$][\w$]*)/g)];
    const calls = [...(m[2] as string).matchAll(LOADER_CALL)];
    if (!calls.some((call) => call[1] === "dist")) continue;
    expect(targets.length, `destructuring and loader calls pair up in:\n${m[0]}`).toBe(calls.length);
    calls.forEach((call, index) => {
      if (call[1] !== "dist") return;
      const braces = targets[index]?.[1];
      found.push({
        pkg: call[2] as string,
        file: call[3] as string,
        names: braces === undefined ? [] : namesOf(braces),
      });
    });
  }
  return found;
}

/** packages/<pkg>/dist/<file>.js comes from packages/<pkg>/src/<file>.ts. */
function sourceOf(entry: PackageImport): string {
  return `${repoRoot}packages/${entry.pkg}/src/${entry.file.replace(/\.js$/, ".ts")}`;
}

describe("the benchmarks' imports of our packages", () => {
  it("finds the imports it checks (the patterns still match the scripts)", () => {
    const all = benchFiles.flatMap((file) => packageImports(readFileSync(`${repoRoot}${file}`, "utf8")));
    expect(all.length).toBeGreaterThan(20);
    expect(all.some((entry) => entry.names.length > 0)).toBe(true);
  });

  it.each(benchFiles)("%s loads modules that exist and names they export", async (file) => {
    const source = readFileSync(`${repoRoot}${file}`, "utf8");
    const problems: string[] = [];
    for (const entry of packageImports(source)) {
      const path = sourceOf(entry);
      if (!existsSync(path)) {
        problems.push(`${entry.pkg}/dist/${entry.file}: no source at packages/${entry.pkg}/src`);
        continue;
      }
      const exported = await import(path);
      for (const name of entry.names) {
        if (!(name in exported)) problems.push(`${entry.pkg}/dist/${entry.file} does not export ${name}`);
      }
    }
    expect(problems).toEqual([]);
  });
});
