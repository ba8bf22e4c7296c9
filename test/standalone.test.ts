import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { REAL_FIXTURES_DIR } from "@t3-connector/test-support/real-fixtures";
import { repoFiles } from "@t3-connector/test-support/repo-files";
import { describe, expect, it } from "vitest";

// The repository must stand alone: a clone with nothing beside it runs every test, and no file
// reads or cites documents that live outside it (a sibling `shared/` checkout, its reference
// notes). CI runs the suite in such a clone (.ci/run); this test names the offending lines fast.

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

// Built from pieces so that this file does not contain what it forbids.
const FORBIDDEN = [
  ["..", "shared"].join("/"),
  ["", "work", "shared"].join("/"),
  ["shared", "reference"].join("/"),
  ["t3", "older", "servers"].join("-"),
  ["t3", "current", "upstream"].join("-"),
  ["connector", "contract"].join("-"),
];

let listed: string[] | undefined;
/** The repository's files (tracked or new, not ignored), read once. */
function trackedFiles(): string[] {
  listed ??= repoFiles();
  return listed;
}

describe("the repository stands alone", () => {
  it("has no tracked file that reads or cites a path or document outside the repository", () => {
    const hits: string[] = [];
    for (const file of trackedFiles()) {
      let bytes: Buffer;
      try {
        bytes = readFileSync(path.join(root, file));
      } catch {
        continue; // deleted in the work tree but still in the index
      }
      if (bytes.includes(0)) continue; // binary
      const lines = bytes.toString("utf8").split("\n");
      lines.forEach((line, index) => {
        const found = FORBIDDEN.find((needle) => line.includes(needle));
        if (found !== undefined) hits.push(`${file}:${index + 1}: ${found}: ${line.trim().slice(0, 120)}`);
      });
    }
    expect(hits, `cite docs/ or state the fact instead:\n${hits.join("\n")}`).toEqual([]);
  });

  it("tracks the real captures the tests read, inside the repository", () => {
    const dir = path.relative(root, REAL_FIXTURES_DIR);
    expect(dir.startsWith("..")).toBe(false);
    const captures = trackedFiles().filter((file) => file.startsWith(`${dir}/`) && file.endsWith(".json"));
    expect(captures.length).toBeGreaterThanOrEqual(90);
    expect(trackedFiles()).toContain(`${dir}/README.md`);
  });
});
