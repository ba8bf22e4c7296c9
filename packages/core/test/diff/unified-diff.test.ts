import { readFileSync } from "node:fs";
import { cappedFilePatch, capText, filePatch, parseUnifiedDiff, utf8Bytes } from "@t3-connector/core/diff";
import { describe, expect, it } from "vitest";

// `git diff --patch --no-color --no-ext-diff --no-textconv` (T3's own flags) between two commits
// touching eleven files of every kind; captured byte for byte (samples/.gitattributes).
const SAMPLE = readFileSync(new URL("./samples/git-many-kinds.diff", import.meta.url), "utf8");

function byPath(text: string) {
  return new Map(parseUnifiedDiff(text).files.map((file) => [file.path, file]));
}

describe("parseUnifiedDiff on git's own output", () => {
  const files = byPath(SAMPLE);

  it("finds every file in order, with totals that sum the files", () => {
    const parsed = parseUnifiedDiff(SAMPLE);
    expect(parsed.files.map((file) => file.path)).toEqual([
      "added.txt",
      "crlf.txt",
      "dashes.txt",
      "image.bin",
      "keep.txt",
      "new-name.txt",
      "nonl.txt",
      "removed.txt",
      "run.sh",
      "tést.txt",
      "with space.txt",
    ]);
    expect(parsed.additions).toBe(parsed.files.reduce((sum, file) => sum + file.additions, 0));
    expect(parsed.deletions).toBe(parsed.files.reduce((sum, file) => sum + file.deletions, 0));
    expect([parsed.additions, parsed.deletions]).toEqual([8, 6]);
  });

  it("reads a new and a deleted file with their modes", () => {
    expect(files.get("added.txt")).toMatchObject({
      status: "added",
      additions: 1,
      deletions: 0,
      newMode: "100644",
    });
    expect(files.get("removed.txt")).toMatchObject({
      status: "deleted",
      additions: 0,
      deletions: 1,
      oldMode: "100644",
    });
  });

  it("reads a rename with its previous path and its own changes", () => {
    expect(files.get("new-name.txt")).toMatchObject({
      status: "renamed",
      previousPath: "old-name.txt",
      additions: 1,
      deletions: 0,
      hunks: 1,
    });
  });

  it("reads a mode change that has no hunk", () => {
    expect(files.get("run.sh")).toMatchObject({
      status: "modified",
      oldMode: "100644",
      newMode: "100755",
      additions: 0,
      deletions: 0,
      hunks: 0,
      binary: false,
    });
  });

  it("marks a binary file and counts no lines for it", () => {
    expect(files.get("image.bin")).toMatchObject({
      binary: true,
      additions: 0,
      deletions: 0,
      status: "modified",
    });
  });

  it("counts around '\\ No newline at end of file' without counting the marker", () => {
    expect(files.get("nonl.txt")).toMatchObject({ additions: 1, deletions: 1, incomplete: false });
    expect(files.get("keep.txt")).toMatchObject({ additions: 2, deletions: 1, incomplete: false });
  });

  it("keeps CR-LF lines as lines, the CR being part of their text", () => {
    const crlf = files.get("crlf.txt");
    expect(crlf).toMatchObject({ additions: 1, deletions: 1 });
    expect(filePatch(SAMPLE, crlf as NonNullable<typeof crlf>)).toContain("+B\r\n");
  });

  it("counts a removed line that reads '-- x' (printed '--- x') as a deletion, not a header", () => {
    expect(files.get("dashes.txt")).toMatchObject({ path: "dashes.txt", additions: 0, deletions: 1 });
  });

  it("decodes quoted paths and a name with a space (and git's trailing tab)", () => {
    expect(files.get("tést.txt")).toMatchObject({ additions: 1, deletions: 1 });
    expect(files.get("with space.txt")).toMatchObject({ additions: 1, deletions: 0 });
  });

  it("slices each file's patch from its own header to the next file", () => {
    const parsed = parseUnifiedDiff(SAMPLE);
    expect(parsed.files.map((file) => filePatch(SAMPLE, file)).join("")).toBe(SAMPLE);
    for (const file of parsed.files) expect(filePatch(SAMPLE, file).startsWith("diff --git ")).toBe(true);
  });
});

describe("parseUnifiedDiff on headers with no hunk", () => {
  it("reads a pure rename", () => {
    const text =
      "diff --git a/keep.txt b/kept.txt\nsimilarity index 100%\nrename from keep.txt\nrename to kept.txt\n";
    expect(parseUnifiedDiff(text).files).toEqual([
      expect.objectContaining({ path: "kept.txt", previousPath: "keep.txt", status: "renamed", hunks: 0 }),
    ]);
  });

  it("reads a copy", () => {
    const text =
      "diff --git a/a.ts b/b.ts\nsimilarity index 90%\ncopy from a.ts\ncopy to b.ts\n--- a/a.ts\n+++ b/b.ts\n@@ -1 +1 @@\n-x\n+y\n";
    expect(parseUnifiedDiff(text).files[0]).toMatchObject({
      path: "b.ts",
      previousPath: "a.ts",
      status: "copied",
      additions: 1,
      deletions: 1,
    });
  });

  it("skips a GIT binary patch's literal lines to the next file", () => {
    const text = [
      "diff --git a/image.bin b/image.bin",
      "index 95d586e..549c577 100644",
      "GIT binary patch",
      "literal 2",
      "JcmZQz2LJ#G00;m8",
      "",
      "literal 4",
      "LcmZSJWMT#Y044wr",
      "",
      "diff --git a/x.txt b/x.txt",
      "--- a/x.txt",
      "+++ b/x.txt",
      "@@ -1 +1 @@",
      "-a",
      "+b",
      "",
    ].join("\n");
    const parsed = parseUnifiedDiff(text);
    expect(parsed.files.map((file) => [file.path, file.binary, file.additions])).toEqual([
      ["image.bin", true, 0],
      ["x.txt", false, 1],
    ]);
  });

  it("reads a diff whose every line ends in CR-LF", () => {
    const text =
      "diff --git a/w.txt b/w.txt\r\nnew file mode 100644\r\n--- /dev/null\r\n+++ b/w.txt\r\n@@ -0,0 +1,2 @@\r\n+a\r\n+b\r\n";
    expect(parseUnifiedDiff(text).files).toEqual([
      expect.objectContaining({ path: "w.txt", status: "added", newMode: "100644", additions: 2 }),
    ]);
  });

  it("reads a plain unified diff without diff --git lines, one file per ---/+++ pair", () => {
    const text =
      "--- a/one\t2026-01-01\n+++ b/one\t2026-01-02\n@@ -1 +1 @@\n-x\n+y\n--- a/two\n+++ b/two\n@@ -1,2 +1 @@\n-p\n q\n";
    expect(parseUnifiedDiff(text).files.map((file) => [file.path, file.additions, file.deletions])).toEqual([
      ["one", 1, 1],
      ["two", 0, 1],
    ]);
  });

  it("answers nothing for an empty diff and never throws on noise", () => {
    expect(parseUnifiedDiff("")).toEqual({ files: [], additions: 0, deletions: 0 });
    expect(parseUnifiedDiff("not a diff\n@@ garbage\n+++\n").files).toEqual([]);
  });

  it("says a file is incomplete when the text ends inside its hunk", () => {
    const text = "diff --git a/c.txt b/c.txt\n--- a/c.txt\n+++ b/c.txt\n@@ -1,3 +1,3 @@\n-a\n+b\n";
    expect(parseUnifiedDiff(text).files[0]).toMatchObject({ incomplete: true, additions: 1, deletions: 1 });
  });
});

describe("huge hunks", () => {
  it("counts a hunk of 200,000 lines by its header", () => {
    const lines = 200_000;
    const body = Array.from({ length: lines }, (_, index) => `+line ${index}`).join("\n");
    const text = `diff --git a/big.txt b/big.txt\nnew file mode 100644\n--- /dev/null\n+++ b/big.txt\n@@ -0,0 +1,${lines} @@\n${body}\ndiff --git a/after.txt b/after.txt\n--- a/after.txt\n+++ b/after.txt\n@@ -1 +1 @@\n-x\n+y\n`;
    const parsed = parseUnifiedDiff(text);
    expect(parsed.files.map((file) => [file.path, file.additions, file.deletions])).toEqual([
      ["big.txt", lines, 0],
      ["after.txt", 1, 1],
    ]);
  });
});

describe("cutting a patch to a byte budget", () => {
  it("keeps a patch within budget whole", () => {
    expect(capText("a\nb\n", 100)).toEqual({ text: "a\nb\n", truncated: false, bytes: 4 });
  });

  it("cuts at a line end, counting UTF-8 bytes, never half a character", () => {
    const text = "ééé\nééé\nééé\n"; // 7 bytes a line
    const cut = capText(text, 16);
    expect(cut).toEqual({ text: "ééé\nééé\n", truncated: true, bytes: 14 });
    expect(utf8Bytes(cut.text)).toBeLessThanOrEqual(16);
  });

  it("cuts one file's patch out of the whole diff", () => {
    const parsed = parseUnifiedDiff(SAMPLE);
    const keep = parsed.files.find((file) => file.path === "keep.txt");
    const cut = cappedFilePatch(SAMPLE, keep as NonNullable<typeof keep>, 60);
    expect(cut.truncated).toBe(true);
    expect(cut.bytes).toBeLessThanOrEqual(60);
    expect(cut.text.startsWith("diff --git a/keep.txt b/keep.txt\n")).toBe(true);
    expect(cut.text.endsWith("\n")).toBe(true);
  });
});
