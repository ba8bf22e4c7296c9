#!/usr/bin/env node
// Runs every benchmark in bench/ one after the other (never in parallel: they measure the same
// two cores) and prints a summary of the JSON line each one reports. A benchmark compares its
// subject against a baseline measured in the same run, so the figures travel between machines.
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

const reports = [];
let failed = 0;
for (const file of files) {
  process.stderr.write(`\n== ${file}\n`);
  const lines = [];
  const code = await new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(benchDir, file)], {
      cwd: root,
      stdio: ["ignore", "pipe", "inherit"],
    });
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk) => {
      process.stdout.write(chunk);
      lines.push(...chunk.split("\n"));
    });
    child.on("close", resolve);
  });
  if (code !== 0) failed++;
  for (const line of lines) {
    if (!line.startsWith("{")) continue;
    try {
      const parsed = JSON.parse(line);
      if (parsed.bench) reports.push(parsed);
    } catch {
      // not a report line
    }
  }
}

process.stdout.write("\n== summary\n");
for (const report of reports) process.stdout.write(`${JSON.stringify(report)}\n`);
if (failed > 0) {
  process.stderr.write(`${failed} benchmark(s) failed\n`);
  process.exit(1);
}
