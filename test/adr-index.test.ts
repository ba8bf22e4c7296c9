import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { REPO_ROOT } from "@t3-connector/test-support/repo-files";
import { describe, expect, it } from "vitest";

// docs/adr/README.md is the one list of the decisions: every ADR file has its line there, every
// line has its file, every ADR says its status near its top, and an ADR the index calls amended
// points at each later ADR that changed it, so a reader who opens the old one learns of the new.

const ADR_DIR = path.join(REPO_ROOT, "docs/adr");
const ADR_FILE = /^(\d{4})-[a-z0-9-]+\.md$/;

interface IndexRow {
  number: string;
  /** The file the row links, when it links one. */
  file: string | undefined;
  status: string;
}

/** The rows of the index's table: `| [NNNN](file) | title | status |` (or a bare NNNN). */
function indexRows(markdown: string): IndexRow[] {
  return markdown
    .split("\n")
    .map((line) => /^\|\s*(?:\[(\d{4})\]\(([^)]+)\)|(\d{4}))\s*\|[^|]*\|([^|]*)\|\s*$/.exec(line))
    .filter((match): match is RegExpExecArray => match !== null)
    .filter((match) => !/^(number|ADR)$/.test(match[1] ?? match[3] ?? ""))
    .map((match) => ({
      number: match[1] ?? match[3] ?? "",
      file: match[2],
      status: (match[4] ?? "").trim(),
    }));
}

/** Every disagreement between the files and the index, and every ADR without a Status line. */
function indexProblems(
  files: readonly string[],
  rows: readonly IndexRow[],
  textOf: (file: string) => string,
): string[] {
  const problems: string[] = [];
  const byNumber = new Map<string, string[]>();
  for (const file of files) {
    const number = ADR_FILE.exec(file)?.[1];
    if (number === undefined) {
      problems.push(`docs/adr/${file}: not named NNNN-words.md`);
      continue;
    }
    byNumber.set(number, [...(byNumber.get(number) ?? []), file]);
  }
  for (const [number, named] of byNumber) {
    if (named.length > 1) problems.push(`ADR ${number} has ${named.length} files: ${named.join(", ")}`);
    const row = rows.filter((candidate) => candidate.number === number);
    if (row.length !== 1)
      problems.push(`docs/adr/${named[0]} has ${row.length} lines in docs/adr/README.md, not 1`);
    // A bare number (an ADR another branch is writing) is matched by its number alone.
    else if (row[0]?.file !== undefined && row[0].file !== named[0]) {
      problems.push(`docs/adr/README.md links ADR ${number} to ${row[0]?.file}, but its file is ${named[0]}`);
    }
    const top = textOf(named[0] as string)
      .split("\n")
      .slice(0, 8);
    if (!top.some((line) => /^Status: \S/.test(line))) {
      problems.push(`docs/adr/${named[0]} has no "Status: …" line near its top`);
    }
  }
  for (const row of rows) {
    if (!byNumber.has(row.number))
      problems.push(`docs/adr/README.md lists ADR ${row.number}, which has no file`);
    if (!/^(accepted|superseded by \d{4})/.test(row.status)) {
      problems.push(
        `ADR ${row.number}'s status "${row.status}" is not accepted / amended by N / superseded by N`,
      );
    }
    const file = byNumber.get(row.number)?.[0];
    if (file === undefined) continue;
    const top = textOf(file).split("\n").slice(0, 14).join("\n");
    for (const later of row.status.match(/\b\d{4}\b/g) ?? []) {
      if (!new RegExp(`\\b${later}\\b`).test(top)) {
        problems.push(`docs/adr/${file} is ${row.status}, but its top does not point at ADR ${later}`);
      }
    }
  }
  return problems;
}

const GAPS_HEADING = "## Numbers with no ADR";

/** The numbers the index explains as never used: its second table's first column. */
function gapNumbers(markdown: string): string[] {
  const gaps = markdown.split(GAPS_HEADING)[1] ?? "";
  return [...gaps.matchAll(/^\|\s*(\d{4})\s*\|/gm)].map((match) => match[1] as string);
}

/** Each number up to the highest has a row, or a line that says why it has no ADR (and no file). */
function gapProblems(rows: readonly IndexRow[], gaps: readonly string[], files: readonly string[]): string[] {
  const listed = new Set(rows.map((row) => Number(row.number)));
  const highest = Math.max(...listed);
  const problems: string[] = [];
  for (let number = 1; number <= highest; number += 1) {
    const padded = String(number).padStart(4, "0");
    if (!listed.has(number) && !gaps.includes(padded)) {
      problems.push(`ADR number ${padded} is neither listed nor explained under "${GAPS_HEADING}"`);
    }
  }
  for (const gap of gaps) {
    if (files.some((file) => file.startsWith(`${gap}-`)) || listed.has(Number(gap))) {
      problems.push(`${gap} is explained as unused, but it has an ADR`);
    }
  }
  return problems;
}

const files = readdirSync(ADR_DIR).filter((file) => file !== "README.md" && file.endsWith(".md"));
const index = readFileSync(path.join(ADR_DIR, "README.md"), "utf8");
const rows = indexRows(index.split(GAPS_HEADING)[0] ?? "");
const textOf = (file: string) => readFileSync(path.join(ADR_DIR, file), "utf8");

describe("the ADR index", () => {
  it("lists every ADR file with its status, only those, and each ADR has a Status line and points at what amended it", () => {
    expect(rows.length).toBeGreaterThan(60);
    const problems = indexProblems(files, rows, textOf);
    expect(problems, problems.join("\n")).toEqual([]);
  });

  it("explains every number with no ADR", () => {
    const gaps = gapNumbers(index);
    expect(gaps).toEqual(["0023", "0039", "0045", "0048", "0057", "0059", "0061", "0065"]);
    const problems = gapProblems(rows, gaps, files);
    expect(problems, problems.join("\n")).toEqual([]);
    expect(gapProblems(rows, gaps.slice(1), files)).toEqual([
      `ADR number 0023 is neither listed nor explained under "${GAPS_HEADING}"`,
    ]);
  });

  it("fails on a file missing from the index, a line with no file, a missing Status line or a missing pointer", () => {
    const texts: Record<string, string> = {
      "0001-a.md": "# ADR 0001\n\nStatus: accepted.\n",
      "0002-b.md": "# ADR 0002\n\nNo status here.\n",
      "0003-c.md": "# ADR 0003\n\nStatus: accepted.\n",
    };
    const planted = indexRows(
      [
        "| ADR | Title | Status |",
        "| --- | ----- | ------ |",
        "| [0002](0002-b.md) | B | accepted |",
        "| [0003](0003-c.md) | C | accepted; amended by 0004 |",
        "| [0004](0004-d.md) | D | accepted |",
      ].join("\n"),
    );
    expect(indexProblems(Object.keys(texts), planted, (file) => texts[file] ?? "")).toEqual([
      "docs/adr/0001-a.md has 0 lines in docs/adr/README.md, not 1",
      'docs/adr/0002-b.md has no "Status: …" line near its top',
      "docs/adr/0003-c.md is accepted; amended by 0004, but its top does not point at ADR 0004",
      "docs/adr/README.md lists ADR 0004, which has no file",
    ]);
  });
});
