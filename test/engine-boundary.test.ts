import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { repoFiles } from "@t3-connector/test-support/repo-files";
import { describe, expect, it } from "vitest";

// The write engine's journal and dispatcher are its own (ADR 0027): every other package reaches
// them through `@t3-connector/write-engine/engine` only, so the order of a write's steps and the
// journal's rules cannot be bypassed or re-assembled elsewhere. Biome holds the same line for the
// packages it lists (biome.json); this test covers every package, source and tests alike.

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

/** The engine's private parts, as another package would name them in an import or `import()`. */
const PRIVATE = /["']@t3-connector\/write-engine\/(journal|dispatch)(\/[^"']*)?["']/;
const FACE = /["']@t3-connector\/write-engine\/engine["']/;

/**
 * Tests that forge journal states the engine never produces by itself (a `preparing` record left
 * by a killed gate, segments to damage on purpose); they write the journal's files as a crash would.
 */
const FORGES_JOURNAL_STATE = new Set([
  "packages/write-gate/test/process/start-gate.test.ts",
  "packages/write-gate/test/crash/journal-damage.e2e.test.ts",
]);

function sourcesOutsideTheEngine(): string[] {
  return ["packages", "test", "bench"]
    .flatMap((folder) => repoFiles(folder))
    .filter((file) => file.endsWith(".ts") && !file.startsWith("packages/write-engine/"));
}

function read(file: string): string {
  try {
    return readFileSync(path.join(root, file), "utf8");
  } catch {
    return ""; // deleted in the work tree but still in the index
  }
}

describe("only the write engine imports its journal and its dispatcher", () => {
  it("finds no other package's file that imports write-engine/journal or write-engine/dispatch", () => {
    const hits: string[] = [];
    for (const file of sourcesOutsideTheEngine()) {
      if (FORGES_JOURNAL_STATE.has(file)) continue;
      read(file)
        .split("\n")
        .forEach((line, index) => {
          if (PRIVATE.test(line)) hits.push(`${file}:${index + 1}: ${line.trim()}`);
        });
    }
    expect(hits, `import @t3-connector/write-engine/engine instead:\n${hits.join("\n")}`).toEqual([]);
  });

  it("sees the gate and ops reach the engine through its public entry", () => {
    const users = sourcesOutsideTheEngine().filter((file) => FACE.test(read(file)));
    expect(users).toEqual(
      expect.arrayContaining([
        "packages/write-gate/src/process/start-gate.ts",
        "packages/write-gate/src/process/reconcile.ts",
        "packages/ops/src/act.ts",
      ]),
    );
  });

  it("lets a forging test keep its exemption only while it still needs one", () => {
    for (const file of FORGES_JOURNAL_STATE) expect(read(file), file).toMatch(PRIVATE);
  });
});
