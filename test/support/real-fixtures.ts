/**
 * Where the real T3 Code 0.0.31 captures live: `fixtures/t3-0.0.31/` at the repository root (its
 * README says what they are). Every test that reads a capture resolves it here, so a clone of the
 * repository alone is enough to run them.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

export const REAL_FIXTURES_DIR = path.join(repoRoot, "fixtures", "t3-0.0.31");

/** The absolute path of one capture, by file name (e.g. `62-ws-server-getConfig.json`). */
export const realFixturePath = (file: string): string => path.join(REAL_FIXTURES_DIR, file);

/** One capture, parsed. The shape is the caller's to assert. */
export function readRealFixture<T = unknown>(file: string): T {
  return JSON.parse(readFileSync(realFixturePath(file), "utf8")) as T;
}
