import { readFileSync } from "node:fs";
import path from "node:path";
import { REPO_ROOT, repoFiles } from "@t3-connector/test-support/repo-files";
import { describe, expect, it } from "vitest";

// The read server imports write-bridge (ARCHITECTURE.md's import edges) for two jobs only: serving
// the write tools to OAuth sessions granted t3:write (src/http, ADR 0049) and reading the gate's
// approval feed for the events service (src/events, ADR 0051). The generated lint override allows
// the edge for the whole package, so this test keeps stdio `serve` and the read tools read-only.
const ALLOWED_FOLDERS = ["packages/read-server/src/http/", "packages/read-server/src/events/"];

describe("read-server's imports of write-bridge", () => {
  it("come only from src/http and src/events", () => {
    const importing = repoFiles("packages/read-server/src")
      .filter((file) => /\.(ts|mts)$/.test(file))
      .filter((file) =>
        /from\s+["']@t3-connector\/write-bridge|import\(\s*["']@t3-connector\/write-bridge/.test(
          readFileSync(path.join(REPO_ROOT, file), "utf8"),
        ),
      );
    expect(importing.length).toBeGreaterThan(0);
    expect(importing.filter((file) => !ALLOWED_FOLDERS.some((folder) => file.startsWith(folder)))).toEqual(
      [],
    );
  });
});
