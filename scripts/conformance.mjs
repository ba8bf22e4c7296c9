#!/usr/bin/env node
/**
 * The MCP conformance suite's server scenarios that apply to a tools-only server, against the
 * real `t3-connector serve --http` on the simulator (issue 34). The suite needs Node 22 or later:
 * `--node` names that binary (scripts/ci-conformance.sh installs one from the npm registry), and
 * `--conformance` the suite's entry file. This process (any supported Node) runs the simulator
 * and the server; each scenario runs as its own process and must pass.
 *
 *   node scripts/conformance.mjs --node /path/to/node22 --conformance /path/to/conformance/dist/index.js
 *
 * Left out: the tools-call-*, resources-*, prompts-*, logging and completion scenarios, which call
 * the reference server's own fixture tools and features this read-only server does not have.
 */
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

export const SCENARIOS = ["server-initialize", "ping", "tools-list", "dns-rebinding-protection"];

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const option = (name) => {
  const at = process.argv.indexOf(name);
  const value = at < 0 ? undefined : process.argv[at + 1];
  if (value === undefined) {
    process.stderr.write(`conformance: ${name} <path> is required\n`);
    process.exit(2);
  }
  return value;
};
const suiteNode = option("--node");
const suite = option("--conformance");

const children = [];
const exited = (child) =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve(child.exitCode)
    : new Promise((resolve) => child.once("exit", (code) => resolve(code)));

/** Spawns `args` with this Node and resolves with the first stdout line, parsed as JSON. */
async function startReady(args, env = process.env) {
  const child = spawn(process.execPath, args, { env, stdio: ["ignore", "pipe", "inherit"] });
  children.push(child);
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).once("line", (line) => resolve(JSON.parse(line)));
    child.once("exit", (code) => reject(new Error(`${args.join(" ")} exited early (${code})`)));
  });
}

function runScenario(url, scenario, outputDir) {
  const child = spawn(
    suiteNode,
    [suite, "server", "--url", url, "--scenario", scenario, "--output-dir", outputDir],
    { stdio: ["ignore", "inherit", "inherit"] },
  );
  return exited(child);
}

const work = await mkdtemp(path.join(os.tmpdir(), "t3-connector-conformance-"));
let failed = [];
try {
  await startReady([
    path.join(root, "packages/t3-sim/bin/t3-sim.js"),
    "serve",
    "--environments",
    "2",
    "--seed",
    "demo",
    "--config-out",
    work,
  ]);
  // Loopback without a token: the suite's client brings none. Host and Origin checks stay on.
  const ready = await startReady(
    [path.join(root, "packages/read-server/bin/t3-connector.js"), "serve", "--http", "--port", "0"],
    { ...process.env, T3_CONNECTOR_CONFIG: path.join(work, "config.json") },
  );
  process.stdout.write(`conformance: suite on ${suiteNode}, server ${ready.url}\n`);
  for (const scenario of SCENARIOS) {
    const code = await runScenario(ready.url, scenario, path.join(work, "results", scenario));
    process.stdout.write(`conformance: ${scenario}: ${code === 0 ? "passed" : `FAILED (exit ${code})`}\n`);
    if (code !== 0) failed.push(scenario);
  }
} catch (error) {
  process.stderr.write(`conformance: ${error instanceof Error ? error.message : String(error)}\n`);
  failed = ["(setup)"];
} finally {
  for (const child of children.reverse()) {
    child.kill("SIGTERM");
    await exited(child);
  }
  await rm(work, { recursive: true, force: true });
}
if (failed.length > 0) {
  process.stderr.write(`conformance: failed: ${failed.join(", ")}\n`);
  process.exit(1);
}
process.stdout.write(`conformance: all ${SCENARIOS.length} applicable server scenarios passed\n`);
