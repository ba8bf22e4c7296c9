import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { REPO_ROOT } from "@t3-connector/test-support/repo-files";
import { describe, expect, it } from "vitest";

// The README translates every Portuguese tool name (the seed's contract): a tool whose name holds
// one of these words has its line in "Tool names, in English". New tools are named in English, so
// a new name with a Portuguese word fails here until it is translated (or renamed).

const PORTUGUESE_WORDS = [
  "ambientes",
  "projetos",
  "buscar",
  "atencao",
  "mensagens",
  "aguardar",
  "pedir",
  "aprovacao",
  "reconciliar",
  "escrita",
  "escrever",
];

/** Every tool either MCP server lists, from the committed snapshots (test/tool-snapshots.test.ts). */
function toolNames(): string[] {
  const root = path.join(REPO_ROOT, "test/__toolsnaps__");
  const names = readdirSync(root).flatMap((server) =>
    readdirSync(path.join(root, server)).map((file) => file.replace(/\.json$/, "")),
  );
  return [...new Set(names)].sort();
}

describe("the README's tool-name glossary", () => {
  it("translates every Portuguese tool name", () => {
    const readme = readFileSync(path.join(REPO_ROOT, "README.md"), "utf8");
    const glossary = readme.split("## Tool names, in English")[1]?.split("\n## ")[0] ?? "";
    const translated = new Set(
      [...glossary.matchAll(/^\| `(t3_[a-z_]+)` +\| +(\S[^|]*?) *\|$/gm)].map((m) => m[1]),
    );
    const portuguese = toolNames().filter((name) =>
      name.split("_").some((word) => PORTUGUESE_WORDS.includes(word)),
    );
    expect(portuguese.length).toBeGreaterThanOrEqual(53);
    expect(portuguese.filter((name) => !translated.has(name))).toEqual([]);
    expect([...translated].filter((name) => !portuguese.includes(name as string))).toEqual([]);
  });
});
