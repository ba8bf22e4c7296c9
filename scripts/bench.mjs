#!/usr/bin/env node
// Runs every benchmark in bench/ one after the other (never in parallel: they measure the same
// two cores), then prints one table of every target (bench, metric, value, target, pass) and the
// JSON line each bench reported. A benchmark compares its subject against a baseline measured in
// the same run, so the figures travel between machines. Exits non-zero when any bench missed a
// target or failed to report.
//
//   pnpm bench                 every bench
//   pnpm bench read-scale      only the benches whose file name contains one of the words
import { spawn } from "node:child_process";
import { readdir } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const benchDir = path.join(root, "bench");
const only = process.argv.slice(2);
const files = (await readdir(benchDir))
  .filter((f) => f.endsWith(".mjs"))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();

const runs = [];
for (const file of files) {
  process.stderr.write(`\n== ${file}\n`);
  let stdout = "";
  const code = await new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(benchDir, file)], {
      cwd: root,
      stdio: ["ignore", "pipe", "inherit"],
    });
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk) => {
      process.stdout.write(chunk);
      stdout += chunk;
    });
    child.on("close", resolve);
  });
  runs.push({ file, code, reports: reportLines(stdout) });
}

const rows = runs.flatMap(tableRows);
process.stdout.write(`\n== summary\n${table(rows)}\n\n`);
for (const run of runs) for (const report of run.reports) process.stdout.write(`${JSON.stringify(report)}\n`);
const failed = runs.filter((run) => run.code !== 0 || run.reports.length === 0);
if (failed.length > 0) {
  process.stderr.write(`${failed.length} benchmark(s) missed: ${failed.map((run) => run.file).join(", ")}\n`);
  process.exit(1);
}

/** The `{"bench": …}` JSON lines of a bench's stdout. */
function reportLines(stdout) {
  const reports = [];
  for (const line of stdout.split("\n")) {
    if (!line.startsWith("{")) continue;
    try {
      const parsed = JSON.parse(line);
      if (parsed.bench) reports.push(parsed);
    } catch {
      // not a report line
    }
  }
  return reports;
}

/** A report's `checks` as rows; a report without them is one row with its overall verdict. */
function tableRows(run) {
  if (run.reports.length === 0) {
    return [
      { bench: run.file.replace(/\.mjs$/, ""), metric: "(no report)", value: "-", target: "-", pass: false },
    ];
  }
  return run.reports.flatMap((report) => {
    const checks = Array.isArray(report.checks) ? report.checks : [];
    if (checks.length === 0) {
      return [
        {
          bench: report.bench,
          metric: "pass",
          value: String(report.pass),
          target: "true",
          pass: report.pass === true,
        },
      ];
    }
    return checks.map((check) => ({
      bench: report.bench,
      metric: check.metric,
      value: check.value === null ? "-" : String(check.value),
      target: String(check.target),
      pass: check.pass === true,
    }));
  });
}

function table(rows) {
  const header = { bench: "bench", metric: "metric", value: "value", target: "target", pass: "pass" };
  const cells = [header, ...rows.map((row) => ({ ...row, pass: row.pass ? "yes" : "NO" }))];
  const columns = ["bench", "metric", "value", "target", "pass"];
  const widths = columns.map((column) => Math.max(...cells.map((cell) => String(cell[column]).length)));
  return cells
    .map((cell) =>
      columns
        .map((column, i) => String(cell[column]).padEnd(widths[i] ?? 0))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}
