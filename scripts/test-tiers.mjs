#!/usr/bin/env node
// `pnpm test`: the four test tiers of vitest.config.ts, one after the other (unit, e2e, browser,
// pack), each its own vitest run so a failure is named by its tier. Every tier runs even when an
// earlier one failed, then one table and one closing line ("N passed, N failed, N skipped") sum them
// up; the exit code is non-zero when any tier failed. Arguments pass through to each run, so
// `pnpm test packages/core` runs that folder's tests of whichever tiers hold some. TEST_TIERS
// (e.g. `unit,e2e`) runs only those tiers: CI's runs on the other supported Node lines.
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { stripVTControlCharacters } from "node:util";

const ALL_TIERS = ["unit", "e2e", "browser", "pack"];
const TIERS = process.env.TEST_TIERS
  ? ALL_TIERS.filter((tier) => process.env.TEST_TIERS.split(",").includes(tier))
  : ALL_TIERS;
const extra = process.argv.slice(2).filter((arg) => arg !== "--");
const scratch = await mkdtemp(path.join(tmpdir(), "t3c-tiers-"));

/**
 * Each failed test (or file that failed before its tests ran) as file, name and the first lines of
 * its message, so the closing summary says what failed even where only a log's tail is kept.
 */
function failuresOf(json) {
  const failures = [];
  for (const file of json.testResults ?? []) {
    const where = path.relative(process.cwd(), file.name);
    const failedTests = (file.assertionResults ?? []).filter((test) => test.status === "failed");
    for (const test of failedTests) {
      failures.push({ where, name: test.fullName, message: (test.failureMessages ?? []).join("\n") });
    }
    if (failedTests.length === 0 && file.status === "failed") {
      failures.push({ where, name: "(the file, before or around its tests)", message: file.message ?? "" });
    }
  }
  return failures;
}

/** The first lines of a failure message, indented, without colour codes or the runner's frames. */
function briefly(message) {
  return (
    stripVTControlCharacters(message)
      .split("\n")
      // vitest's and node's own stack frames say nothing about the failure.
      .filter((line) => line.trim() !== "" && !/node_modules|node:internal|<anonymous>/.test(line))
      .slice(0, 8)
      .map((line) => `      ${line.slice(0, 240)}`)
      .join("\n")
  );
}

/** Runs one tier; its JSON report gives the counts, vitest's own output goes to the terminal. */
async function runTier(tier) {
  const report = path.join(scratch, `${tier}.json`);
  const args = ["exec", "vitest", "run", "--project", tier, "--reporter=default", "--reporter=json"];
  args.push(`--outputFile.json=${report}`);
  if (extra.length > 0) args.push("--passWithNoTests", ...extra);
  process.stderr.write(`\n== test tier: ${tier}\n`);
  const started = Date.now();
  const code = await new Promise((resolve) => {
    const child = spawn("pnpm", args, { stdio: "inherit" });
    child.on("close", (status, signal) => resolve(status ?? (signal ? 1 : 0)));
    child.on("error", () => resolve(1));
  });
  const seconds = Math.round((Date.now() - started) / 1000);
  try {
    const json = JSON.parse(await readFile(report, "utf8"));
    return {
      tier,
      code,
      seconds,
      passed: json.numPassedTests,
      failed: json.numFailedTests,
      skipped: json.numPendingTests + json.numTodoTests,
      failures: failuresOf(json),
    };
  } catch {
    // No report: the run stopped before its tests (a failed build, a broken config).
    return { tier, code: code === 0 ? 1 : code, seconds, passed: 0, failed: 0, skipped: 0, failures: [] };
  }
}

const results = [];
for (const tier of TIERS) results.push(await runTier(tier));
await rm(scratch, { recursive: true, force: true });

process.stdout.write("\ntier     result  passed  failed  skipped  seconds\n");
for (const r of results) {
  const verdict = r.code === 0 ? "ok" : "FAILED";
  process.stdout.write(
    `${r.tier.padEnd(8)} ${verdict.padEnd(7)} ${String(r.passed).padStart(6)}  ${String(r.failed).padStart(6)}  ${String(r.skipped).padStart(7)}  ${String(r.seconds).padStart(7)}\n`,
  );
}
const sum = (key) => results.reduce((total, r) => total + r[key], 0);
process.stdout.write(`\n${sum("passed")} passed, ${sum("failed")} failed, ${sum("skipped")} skipped\n`);
for (const r of results) {
  for (const failure of r.failures) {
    process.stdout.write(
      `\nFAILED [${r.tier}] ${failure.where} > ${failure.name}\n${briefly(failure.message)}\n`,
    );
  }
}
const failedTiers = results.filter((r) => r.code !== 0).map((r) => r.tier);
if (failedTiers.length > 0) process.stdout.write(`failed tiers: ${failedTiers.join(", ")}\n`);
process.exit(failedTiers.length > 0 ? 1 : 0);
