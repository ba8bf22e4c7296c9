#!/usr/bin/env node
// `pnpm demo`: two simulated T3 Code environments seeded with projects and threads in every
// state, a ready configuration pointing at them, a first look at what is running where, and what
// to try next. Runs until Ctrl-C. `--exit-when-ready` stops after the summary (used by a test).
import { spawn } from "node:child_process";
import { mkdtemp } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const core = await import(path.join(root, "packages/core/dist/t3/index.js"));
const exitWhenReady = process.argv.includes("--exit-when-ready");
const say = (line = "") => process.stdout.write(`${line}\n`);

const configDir = await mkdtemp(path.join(os.tmpdir(), "t3-connector-demo-"));
const simBin = path.join(root, "packages/t3-sim/bin/t3-sim.js");
const sim = spawn(
  process.execPath,
  [simBin, "serve", "--environments", "2", "--seed", "demo", "--config-out", configDir],
  { stdio: ["ignore", "pipe", "inherit"] },
);

const ready = await new Promise((resolve, reject) => {
  const lines = createInterface({ input: sim.stdout });
  lines.once("line", (line) => resolve(JSON.parse(line)));
  sim.once("exit", (code) => reject(new Error(`the simulator exited early (code ${code})`)));
});

let stopping = false;
const stop = (code = 0) => {
  if (stopping) return;
  stopping = true;
  sim.once("exit", () => process.exit(code));
  sim.kill("SIGTERM");
};
process.on("SIGINT", () => stop(0));
process.on("SIGTERM", () => stop(0));

say("t3-connector demo — two simulated T3 Code environments are running on this machine.");
say();
for (const env of ready.environments) {
  const http = new core.T3HttpClient({ baseUrl: env.url, token: env.readToken });
  const [descriptor, shell] = await Promise.all([http.getDescriptor(), http.getShell()]);
  say(`  ${env.alias}  ${descriptor.label}  ${env.url}  (environmentId ${env.environmentId})`);
  say(`    ${shell.projects.length} projects, ${shell.threads.length} active threads:`);
  for (const thread of shell.threads) {
    const flags = [
      thread.pendingRuntimeRequest ? `waiting on ${thread.pendingRuntimeRequest.kind}` : null,
      thread.settledAt ? "settled" : null,
      thread.snoozedUntil ? `snoozed until ${thread.snoozedUntil}` : null,
      thread.pinnedAt ? "pinned" : null,
    ].filter(Boolean);
    say(`      - ${String(thread.status).padEnd(11)} ${thread.title}${flags.length ? `  [${flags.join(", ")}]` : ""}`);
  }
  say();
}

say(`Configuration written to ${configDir}:`);
say(`  config.json (read), write.json (write), tokens/ (mode 600)`);
say();
say("Try next:");
say(`  export T3_CONNECTOR_CONFIG=${path.join(configDir, "config.json")}`);
say(`  export T3_CONNECTOR_WRITE_CONFIG=${path.join(configDir, "write.json")}`);
const first = ready.environments[0];
say(`  curl -s ${first.url}/.well-known/t3/environment`);
say(`  curl -s -H "Authorization: Bearer $(cat ${path.join(configDir, "tokens", `${first.alias}.read.token`)})" \\`);
say(`       -H "x-t3-orchestration-protocol: 2" ${first.url}/api/orchestration/shell`);
say();
say("Press Ctrl-C to stop the simulated environments.");

if (exitWhenReady) stop(0);
